/**
 * A Python script of this directory as a child process speaking JSON lines: stdin lines out,
 * stdout lines in (kept in order), stderr kept for the failure message. Waiting for a line
 * fails when the process exits first or takes too long, and close() fails unless the script
 * exits 0, so a script that prints nothing, or prints and then fails, fails the test.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface JsonLinesProcess {
  /** Every stdout line so far, parsed. */
  readonly lines: Json[];
  /** The first defined value of `probe` over the lines received so far, tried on every new line. */
  until<T>(probe: (lines: Json[]) => T | undefined, what: string, timeoutMs?: number): Promise<T>;
  send(line: Json): void;
  /** Ends stdin; resolves once the script exited 0. */
  close(): Promise<void>;
}

export function startJsonLines(python: string, script: string, args: string[] = []): JsonLinesProcess {
  const path = fileURLToPath(new URL(script, import.meta.url));
  // -B: no __pycache__ beside the scripts.
  const child = spawn(python, ['-B', path, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: Json[] = [];
  let stderr = '';
  let ended: string | undefined;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (text) => {
    try {
      lines.push(JSON.parse(text));
    } catch {
      stderr += `\n(stdout line that is not JSON: ${text})`;
    }
    notify();
  });
  const exited = new Promise<void>((resolve) => {
    child.on('close', (code, signal) => {
      ended = `${script} exited with ${code ?? signal}${stderr ? `: ${stderr.trim()}` : ' and printed nothing on stderr'}`;
      notify();
      resolve();
    });
    child.on('error', (e) => {
      ended = `${script} did not start: ${e.message}`;
      notify();
      resolve();
    });
  });
  return {
    lines,
    until(probe, what, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(() => reject(new Error(`${script}: no ${what} within ${timeoutMs} ms; stderr: ${stderr.trim()}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        const check = () => {
          const value = probe(lines);
          if (value !== undefined) done(() => resolve(value));
          else if (ended !== undefined) done(() => reject(new Error(`no ${what}: ${ended}`)));
        };
        listeners.add(check);
        check();
      });
    },
    send(line) {
      child.stdin.write(`${JSON.stringify(line)}\n`);
    },
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
      if (child.exitCode !== 0) throw new Error(ended);
    },
  };
}
