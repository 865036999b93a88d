/** Running the real `a2a` command (bin/a2a.js) as a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const A2A_BIN = fileURLToPath(new URL('../../bin/a2a.js', import.meta.url));

export interface A2AProcess {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first stdout line matching `pattern` (or rejects after `timeoutMs`). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  kill(signal?: NodeJS.Signals): void;
}

export function runA2A(args: string[], env: Record<string, string> = {}): A2AProcess {
  return spawnA2A({ bin: A2A_BIN, args, cwd: REPO_ROOT, env: { ...process.env, ...env } });
}

/** Runs an `a2a` executable (this repo's, or one installed from the package) with node. */
export function spawnA2A(options: { bin: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv }): A2AProcess {
  const child = spawn(process.execPath, [options.bin, ...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (d: string) => {
    stdout += d;
    for (const l of [...listeners]) l();
  });
  child.stderr?.on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      // Let the pipes drain before reporting.
      setImmediate(() => {
        for (const l of [...listeners]) l();
        resolve({ code, signal });
      });
    });
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitForLine(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = stdout.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) {
            done();
            resolve(line);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`a2a exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}; stdout: ${stdout} stderr: ${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`a2a printed no line matching ${pattern} within ${timeoutMs} ms; stdout: ${stdout} stderr: ${stderr}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

export interface ServeUrls {
  card: string;
  jsonrpc: string;
  rest: string;
  agent: string;
}

/** `a2a serve --port 0 --json [...args]`, resolved once the URLs are printed. */
export async function startServe(args: string[] = [], env: Record<string, string> = {}): Promise<{ proc: A2AProcess; urls: ServeUrls }> {
  // Tests never write the default ./.a2a/tasks.db of the repository: memory unless they ask.
  const store = args.some((a) => a === '--store' || a.startsWith('--store=')) ? [] : ['--store', 'memory'];
  const proc = runA2A(['serve', '--port', '0', '--json', ...store, ...args], env);
  try {
    const line = await proc.waitForLine(/^\{.*\}$/);
    const printed = JSON.parse(line) as ServeUrls | { error: unknown };
    if ('error' in printed) throw new Error(`a2a serve failed: ${line}`);
    return { proc, urls: printed };
  } catch (error) {
    proc.kill();
    throw error;
  }
}

/** Runs `a2a ...args` to completion. */
export async function runToExit(args: string[], timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = runA2A(args);
  const timer = setTimeout(() => proc.kill(), timeoutMs);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout, stderr: proc.stderr };
}
