/** Writes a benchmark's results to bench/results/<name>, after the machine it ran on. */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';

export function writeResults(root: string, name: string, results: Record<string, unknown>): void {
  mkdirSync(`${root}bench/results`, { recursive: true });
  const json = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    ...results,
  };
  writeFileSync(`${root}bench/results/${name}`, `${JSON.stringify(json, null, 2)}\n`);
}
