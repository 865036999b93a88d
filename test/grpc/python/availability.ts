/**
 * Whether the Python gRPC peer can run here: a python3 that imports grpcio and protobuf, and
 * protoc. A2A_TEST_PYTHON names the interpreter (scripts/ci-python-grpc.sh prints it, .ci/run
 * exports it); otherwise `python3` and Debian's /usr/bin/python3 are tried (a pyenv or venv
 * python3 first on PATH does not see Debian's python3-grpcio). Resolves to the interpreter, or
 * to the reason the tests skip. A2A_TEST_PYTHON set but unusable is a failure, not a skip: CI
 * said the peer is there.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PROBE = 'import grpc, google.protobuf; print(grpc.__version__)';

async function works(command: string, args: string[]): Promise<boolean> {
  try {
    await run(command, args, { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

export async function pythonGrpc(): Promise<{ python: string } | { skip: string }> {
  const named = process.env.A2A_TEST_PYTHON;
  const candidates = named ? [named] : ['python3', '/usr/bin/python3'];
  const python = await (async () => {
    for (const c of candidates) if (await works(c, ['-c', PROBE])) return c;
    return undefined;
  })();
  const protoc = await works('protoc', ['--version']);
  if (python && protoc) return { python };
  const missing = [python ? '' : `a python3 with grpcio and protobuf (tried ${candidates.join(', ')})`, protoc ? '' : 'protoc'].filter(Boolean).join(' and ');
  if (named) throw new Error(`A2A_TEST_PYTHON=${named} but the Python gRPC peer cannot run: missing ${missing}`);
  return { skip: `no ${missing}: install Debian's python3-grpcio python3-protobuf protobuf-compiler (A2A_TEST_INSTALL_PYTHON_GRPC=1 bash scripts/ci-python-grpc.sh does, as root)` };
}
