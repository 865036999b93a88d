/**
 * The script the SDK-served test agents (sdkServer.ts for 1.0, sdk03Server.ts for 0.3) follow,
 * written once: each SDK supplies how to publish a message, task, status or artifact in its own
 * types. `msg …` → a Message; `stream …` → three artifact chunks; `ask …` → input-required (a
 * reply completes it with an `answer` artifact); `slow …` → working for ~1.2 s (cancelable);
 * anything else → an echo artifact.
 */

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type ScriptState = 'working' | 'input-required' | 'completed';

export interface ScriptSteps {
  /** The user's text. */
  text: string;
  taskId: string;
  /** The task exists and is waiting for input. */
  awaitingInput: boolean;
  /** Replies with a Message (no task). */
  message(text: string): void;
  /** Publishes the task being resumed after input (a no-op where the SDK does not need it). */
  resume(): void;
  /** Publishes the submitted task. */
  submit(): void;
  status(state: ScriptState, note?: string): void;
  artifact(artifactId: string, chunk: string, flags?: { append?: boolean; lastChunk?: boolean }): void;
  /** Ends the execution (a no-op where the SDK does not need it). */
  finished(): void;
}

/** Runs the script; `canceled` holds the task ids whose cancel was asked for (a slow task then stops). */
export async function runAgentScript(steps: ScriptSteps, canceled: ReadonlySet<string>): Promise<void> {
  const { text, taskId } = steps;
  if (text.startsWith('msg ')) {
    steps.message(text.slice(4));
    steps.finished();
    return;
  }
  if (steps.awaitingInput) {
    steps.resume();
    steps.artifact('answer', text);
    steps.status('completed');
    steps.finished();
    return;
  }
  steps.submit();
  steps.status('working');
  if (text.startsWith('stream ')) {
    for (let i = 1; i <= 3; i++) {
      await sleep(5);
      steps.artifact('s', `chunk ${i} `, { append: i > 1, lastChunk: i === 3 });
    }
  } else if (text.startsWith('ask ')) {
    steps.status('input-required', `${text.slice(4)}?`);
    steps.finished();
    return;
  } else if (text.startsWith('slow ')) {
    for (let i = 0; i < 60; i++) {
      await sleep(20);
      if (canceled.has(taskId)) return;
      if (i % 10 === 0) steps.status('working', `step ${i}`);
    }
    steps.artifact('slow', 'done');
  } else {
    steps.artifact('echo', text);
  }
  steps.status('completed');
  steps.finished();
}
