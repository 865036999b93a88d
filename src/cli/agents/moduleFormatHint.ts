/**
 * What to do when a user module fails to load because node took it for the other module format:
 * an ES module (import/export) loaded as CommonJS — a `.js` file in a package whose package.json
 * has no "type": "module", or a `.cts`/`.cjs` one — or CommonJS (require, module.exports) loaded
 * as an ES module, as a `.ts` file always is under `a2a serve` (bin/typescriptAsModule.js).
 */
import { extname } from 'node:path';

/** Node's codes for an ES module reached through require(). */
const REQUIRED_ESM = new Set(['ERR_REQUIRE_ESM', 'ERR_REQUIRE_CYCLE_MODULE', 'ERR_REQUIRE_ASYNC_MODULE']);
/** Node's words for ESM syntax parsed as CommonJS, and for CommonJS names used in an ES module. */
const ESM_AS_COMMONJS = /Cannot use import statement outside a module|Unexpected token 'export'|Cannot use 'import\.meta' outside a module/;
const COMMONJS_AS_ESM = /is not defined in ES module scope/;

/** One clause saying what to change, when `error` (loading `path`) is a module-format mismatch; else undefined. */
export function moduleFormatHint(path: string, error: unknown): string | undefined {
  const typescript = /\.[cm]?tsx?$/i.test(path);
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (REQUIRED_ESM.has(code as string) || ESM_AS_COMMONJS.test(text)) {
    if (/^\.c[jt]s$/i.test(extname(path))) return `a ${extname(path)} file is CommonJS: rename it to ${typescript ? '.mts' : '.mjs'} to write import/export`;
    return `it was loaded as CommonJS: add "type": "module" to its package.json, or rename it to ${typescript ? '.mts' : '.mjs'}`;
  }
  if (COMMONJS_AS_ESM.test(text)) {
    return `it was loaded as an ES module: write import/export, or rename it to ${typescript ? '.cts' : '.cjs'} for CommonJS`;
  }
  return undefined;
}
