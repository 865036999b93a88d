/**
 * Runs a TypeScript fixture script in a child node (through tsx, with the repository's source
 * condition) and collects what it printed: for checks that need a fresh process, such as one
 * whose trust store comes from NODE_EXTRA_CA_CERTS, read only at startup.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/cliHelpers.js';

export async function runFixture(script: string, args: string[], env: Record<string, string>): Promise<{ out: string; err: string }> {
  const child = spawn(process.execPath, ['--conditions=a2a-kit-source', '--import', 'tsx', join(REPO_ROOT, script), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  await new Promise((resolve) => child.once('close', resolve));
  return { out, err };
}
