/** What the health probe tests share: an agent whose task runs until released, and a probe request. */
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import { request, type HttpResult } from '../node/helpers.js';

/** Answers WORKING, then completes when `release()` is called (or its signal aborts). */
export function heldAgent(): { executor: AgentExecutor; started: Promise<void>; release: () => void } {
  let release!: () => void;
  let markStarted!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const executor: AgentExecutor = {
    async execute(ctx, updater) {
      await updater.startWork();
      markStarted();
      await Promise.race([released, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))]);
      await updater.complete();
    },
  };
  return { executor, started, release };
}

/** One probe request, on a connection of its own. */
export function probe(url: string, method = 'GET'): Promise<HttpResult> {
  return request(url, { method });
}
