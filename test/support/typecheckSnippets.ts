/**
 * Type-checks code blocks from the docs as virtual files placed in `dir` (so their relative
 * imports resolve as they would there), with the project's tsconfig plus two settings of the strict
 * setup the README names for users: `exactOptionalPropertyTypes`, and `lib: ["ES2022"]` (no DOM)
 * with `@types/node`. Nothing is written.
 * Returns one line per problem, naming the block as `<prefix>_<n>.ts:line:col`.
 */
import { join, resolve } from 'node:path';
import ts from 'typescript';

export function typecheckSnippets(options: { root: string; dir: string; prefix: string; blocks: string[] }): string[] {
  const { root, dir, prefix, blocks } = options;
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const snippets = new Map(blocks.map((text, i) => [resolve(dir, `${prefix}_${i + 1}.ts`), text]));
  const compilerOptions: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    exactOptionalPropertyTypes: true,
    lib: ['lib.es2022.d.ts'],
  };
  const host = ts.createCompilerHost(compilerOptions);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => snippets.has(resolve(f)) || fileExists.call(host, f);
  host.readFile = (f) => snippets.get(resolve(f)) ?? readFile.call(host, f);
  host.getSourceFile = (f, language, onError, shouldCreate) => {
    const text = snippets.get(resolve(f));
    return text !== undefined ? ts.createSourceFile(f, text, language) : getSourceFile.call(host, f, language, onError, shouldCreate);
  };
  const program = ts.createProgram({ rootNames: [...snippets.keys()], options: compilerOptions, host });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || snippets.has(resolve(d.file.fileName)))
    .map((d) => {
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      const name = d.file ? d.file.fileName.slice(dir.length + 1) : '';
      return `${name}${where ? `:${where.line + 1}:${where.character + 1}` : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}
