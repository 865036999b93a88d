/** Reading a file an option names: a missing or unreadable file is one line and exit 2. */
import { readFileSync } from 'node:fs';
import { CliError, EXIT } from './errors.js';

const WHY: Record<string, string> = { ENOENT: 'no such file', EISDIR: 'is a directory', EACCES: 'permission denied' };

/** The bytes of `path`, given as `flag` (`--tls-cert cert.pem: no such file`). */
export function readOptionFile(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    throw new CliError(`${flag} ${path}: ${WHY[code] ?? `cannot read (${code || (error as Error).message})`}`, EXIT.USAGE);
  }
}
