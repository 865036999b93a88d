/**
 * scripts/ci-postgres.sh installs PostgreSQL only when asked: CI=true (CI sets it) or
 * A2A_TEST_INSTALL_POSTGRES=1. A local test run without PostgreSQL binaries used to run
 * `apt-get install postgresql` behind the README's back ("a throwaway PostgreSQL if one is
 * installed"); now it fails with a message naming the variable, which pgSetup.ts turns into the
 * skip reason of the PostgreSQL tests.
 *
 * The binaries this machine may have are hidden in a private mount namespace (tmpfs over
 * /usr/lib/postgresql, a PATH without them), and apt-get is a stub that records being called.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/ci-postgres.sh', import.meta.url));

function canHide(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux (the install path is root-only)';
  try {
    execFileSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs none /tmp'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'unshare -m (a private mount namespace) is not available here';
  }
}

/** Runs `ci-postgres.sh start` with no PostgreSQL to be found; returns whether apt-get was called. */
function startWithoutBinaries(env: Record<string, string>): { status: number | null; stderr: string; aptCalled: boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-pg-optin-'));
  try {
    const marker = join(dir, 'apt-get-called');
    const apt = join(dir, 'apt-get');
    writeFileSync(apt, `#!/bin/sh\necho "$@" >> ${marker}\nexit 1\n`);
    chmodSync(apt, 0o755);
    const hide = `[ -d /usr/lib/postgresql ] && mount -t tmpfs none /usr/lib/postgresql; exec bash ${SCRIPT} start`;
    const { CI: _ci, A2A_TEST_INSTALL_POSTGRES: _opt, PG_BIN: _bin, ...rest } = process.env;
    const run = spawnSync('unshare', ['-m', 'sh', '-c', hide], {
      encoding: 'utf8',
      env: { ...rest, PATH: `${dir}:/usr/sbin:/usr/bin:/sbin:/bin`, ...env },
      timeout: 60_000,
    });
    return { status: run.status, stderr: run.stderr, aptCalled: existsSync(marker) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const skip = canHide();

test('PG-OPTIN: without CI=true or A2A_TEST_INSTALL_POSTGRES=1, no PostgreSQL binaries means no install, and a reason naming the variable', skip ? { skip } : {}, () => {
  const local = startWithoutBinaries({});
  assert.equal(local.aptCalled, false, 'a local run does not install anything');
  assert.notEqual(local.status, 0);
  assert.match(local.stderr, /no PostgreSQL binaries found .*A2A_TEST_INSTALL_POSTGRES=1/);
  // Opted in (CI sets CI=true; .ci/run runs this script): the install is attempted.
  assert.equal(startWithoutBinaries({ CI: 'true' }).aptCalled, true, 'CI=true installs');
  assert.equal(startWithoutBinaries({ A2A_TEST_INSTALL_POSTGRES: '1' }).aptCalled, true, 'A2A_TEST_INSTALL_POSTGRES=1 installs');
});
