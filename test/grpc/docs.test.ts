/** docs/grpc.md against the code: the error table, the metadata keys and the default limit. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { DEFAULT_MAX_MESSAGE_BYTES, FIRST_EVENT_ID_KEY, LAST_EVENT_ID_KEY } from '../../src/bindings/grpc/codec.js';
import { STATUS_DETAILS_KEY } from '../../src/bindings/grpc/errors.js';
import { ERROR_TABLE } from '../../src/protocol/errorTable.js';

const DOC = readFileSync(fileURLToPath(new URL('../../docs/grpc.md', import.meta.url)), 'utf8');

test('docs/grpc.md error table has one row per ERROR_TABLE reason with its gRPC status', () => {
  const start = DOC.indexOf('| ErrorInfo reason | gRPC status |');
  assert.ok(start >= 0, 'the table is there');
  const lines = DOC.slice(start).split('\n').slice(2);
  // The table ends at its first line that is not a row (later tables are not part of it).
  const end = lines.findIndex((l) => !l.startsWith('|'));
  const rows = lines
    .slice(0, end < 0 ? lines.length : end)
    .map((l) => l.split('|').map((c) => c.trim().replace(/`/g, '')))
    .map((c) => [c[1], c[2]] as const);
  const table = Object.entries(ERROR_TABLE).map(([reason, row]) => [reason, row.grpcStatus] as const);
  assert.deepEqual(rows, table);
});

test('docs/grpc.md names every metadata key the binding uses and the 4 MiB default', () => {
  for (const key of ['a2a-version', 'a2a-extensions', LAST_EVENT_ID_KEY, FIRST_EVENT_ID_KEY, STATUS_DETAILS_KEY]) {
    assert.ok(DOC.includes(`\`${key}\``), `docs/grpc.md mentions ${key}`);
  }
  assert.equal(DEFAULT_MAX_MESSAGE_BYTES, 4 * 1024 * 1024);
  assert.match(DOC, /`maxMessageBytes` \| 4 MiB/);
});
