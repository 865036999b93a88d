#!/usr/bin/env node
// The `a2a` command.
// - Installed from npm (no src/ beside bin/): runs the compiled dist/cli/main.js on plain node.
// - In a checkout of the repository (src/ present): runs the TypeScript sources through tsx (a
//   devDependency), with the `a2a-kit-source` export condition on, so an agent module that
//   imports `a2a-kit/...` gets the same sources; a stale or missing dist/ never runs. (A checkout
//   installed without devDependencies has no tsx: it runs dist/ like the package.)
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { URL } from 'node:url';

const sources = new URL('../src/cli/main.ts', import.meta.url);
const tsx = existsSync(sources) ? await import('tsx/esm/api').catch(() => undefined) : undefined;

if (tsx) {
  // Registered before tsx, so tsx's resolve calls it: .ts files load as ES modules in any package scope.
  register('./typescriptAsModule.js', import.meta.url);
  tsx.register();
  // Registered after tsx, so it runs first and hands the condition on to tsx and node.
  const addSourceCondition =
    'export function resolve(specifier, context, next) {' +
    " return next(specifier, { ...context, conditions: [...context.conditions, 'a2a-kit-source'] }); }";
  register(`data:text/javascript,${encodeURIComponent(addSourceCondition)}`);
  await import(sources.href);
} else {
  await import('../dist/cli/main.js');
}
