/**
 * `--json` prints one document per failure (docs/cli.md): runCommand renders the whole report
 * before writing any of it, so a report that cannot be rendered (a bug) writes nothing and is
 * reported once, as the internal error it is, by main — not as {"error": {"type": "protocol"}}
 * followed by {"error": {"type": "internal"}} (a BadRequest with `fieldViolations: [null]` did that).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCli, runCommand, type Cli } from '../../src/cli/cli.js';
import { InvalidParamsError } from '../../src/protocol/errors.js';

function capturing(): { cli: Cli; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const write = (t: string) => void out.push(t);
  const cli = { ...createCli('get', { json: true }), out: write, jsonLine: (v: unknown) => write(`${JSON.stringify(v)}\n`), err: (t: string) => void err.push(t) };
  return { cli, out, err };
}

test('--json: a failure is one {"error": …} document', async () => {
  const { cli, out } = capturing();
  const code = await runCommand(cli, () => Promise.reject(new InvalidParamsError('bad', { fieldViolations: [{ field: 'id', description: 'empty' }] })));
  assert.equal(code, 3);
  assert.equal(out.length, 1);
  assert.equal((JSON.parse(out[0] as string) as { error: { type: string } }).error.type, 'protocol');
});

test('--json: a report that cannot be rendered writes nothing (main reports that failure, once)', async () => {
  const { cli, out, err } = capturing();
  const broken = new InvalidParamsError('bad', { fieldViolations: [null as never] });
  await assert.rejects(runCommand(cli, () => Promise.reject(broken)), TypeError);
  assert.deepEqual([out, err], [[], []]);
});
