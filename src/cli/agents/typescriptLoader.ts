/**
 * Lets `a2a serve --agent ./my-agent.ts` (and `--tenants`) load a TypeScript module when the CLI
 * runs as compiled JavaScript (the npm package): tsx — an optional peer dependency — is
 * registered once, found next to a2a-kit or else next to the module, after bin/typescriptAsModule.js
 * (a `.ts` file is an ES module whatever its package scope). Where the CLI itself runs from the
 * TypeScript sources (a checkout: bin/a2a.js, which registers the same two), a loader is already active.
 */
import { readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPESCRIPT_MODULE = /\.(?:ts|mts|cts|tsx)$/i;

interface TsxApi {
  register: () => unknown;
}

let registered: Promise<boolean> | undefined;

/** True when `path` is TypeScript and this process has no TypeScript loader yet. */
export function needsTypeScriptLoader(path: string): boolean {
  return TYPESCRIPT_MODULE.test(path) && !import.meta.url.endsWith('.ts');
}

/** Registers tsx once; false when tsx is installed neither beside a2a-kit nor beside `path`. */
export function registerTypeScriptLoader(path: string): Promise<boolean> {
  registered ??= findTsx(path).then((tsx) => {
    if (!tsx) return false;
    // Before tsx, so that tsx's resolve calls it; the same path from src/cli/agents and dist/cli/agents.
    register('../../../bin/typescriptAsModule.js', import.meta.url);
    tsx.register();
    return true;
  });
  return registered;
}

async function findTsx(path: string): Promise<TsxApi | undefined> {
  const besideKit = await import('tsx/esm/api').catch(() => undefined);
  if (besideKit) return besideKit;
  try {
    return (await import(pathToFileURL(tsxApiBeside(path)).href)) as TsxApi;
  } catch {
    return undefined;
  }
}

/**
 * The file `import 'tsx/esm/api'` would load from beside `path`: its "import" export. (A
 * require.resolve gives the CommonJS build, whose register() looks for its hooks in the wrong
 * directory when imported.)
 */
function tsxApiBeside(path: string): string {
  const manifest = createRequire(path).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, { import?: { default?: string } }> };
  const file = exports?.['./esm/api']?.import?.default;
  if (file === undefined) throw new Error(`${manifest} has no "import" export for ./esm/api`);
  return join(dirname(manifest), file);
}

/** The one-line explanation when `error` is node refusing a TypeScript `path` (no loader), else undefined. */
export function missingLoaderMessage(path: string, error: unknown): string | undefined {
  if (!TYPESCRIPT_MODULE.test(path) || (error as { code?: unknown } | null)?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') return undefined;
  return 'a TypeScript module needs tsx to load: install it in your project (npm install --save-dev tsx), or compile the module to JavaScript';
}
