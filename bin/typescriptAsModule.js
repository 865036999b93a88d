// A module hook: a `.ts` or `.tsx` file loads as an ES module whatever its package scope. Without
// it, where no package.json says "type": "module" (`npm init -y`, or no package.json at all), tsx
// takes such a file for CommonJS: a module reached through import() goes to require() and fails
// (`Cannot require() ES Module ... in a cycle`), and its imports of ESM-only packages such as
// a2a-kit would need require(esm). `.mts` and `.cts` keep their meaning (ES module, CommonJS), and
// `.js` files follow node's rules. Registered before tsx, so that tsx's resolve calls this one
// (node's answer, with no format for a .ts file, or node 22's "commonjs-typescript") and keeps the
// format it returns. Used by bin/a2a.js (a checkout) and src/cli/agents/typescriptLoader.ts (the package).
import { URL } from 'node:url';

const TYPESCRIPT = /\.tsx?$/i;
const MODULE_FORMATS = new Set(['module', 'module-typescript']);

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const typescript = resolved.url.startsWith('file:') && TYPESCRIPT.test(new URL(resolved.url).pathname);
  return typescript && !MODULE_FORMATS.has(resolved.format) ? { ...resolved, format: 'module' } : resolved;
}
