/**
 * In-task authorization (issue 8): an agent that needs more than the caller's token grants moves
 * the task to AUTH_REQUIRED with `task.requireAuth()`; the client surfaces that state, and the
 * same user resumes the task with new credentials (a token with the missing scope) — the
 * follow-up reaches the agent with the new principal and the task completes. Another user
 * cannot resume it (task ownership).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { serveAgent, type RunningAgent } from '../../src/node/serveAgent.js';
import { createClient } from '../../src/client/index.js';
import { bearerToken } from '../../src/client/auth.js';
import { demoCard } from '../../src/cli/agents/demo.js';
import type { AgentCardBase } from '../../src/server/agentDefinition.js';
import type { AgentExecutor } from '../../src/server/agentExecutor.js';
import type { Task } from '../../src/protocol/types.js';
import { AUDIENCE, startIssuer, type TestIssuer } from './support.js';
import { inputHint } from '../../src/cli/render/task.js';
import { createStyle } from '../../src/cli/render/style.js';

const SCOPE = 'calendar:read';

/** Reads the calendar only with the calendar scope; otherwise asks for authorization. */
const calendarAgent: AgentExecutor = {
  async execute(ctx, task) {
    if (!ctx.principal?.scopes.includes(SCOPE)) {
      await task.requireAuth(`Reading your calendar needs the ${SCOPE} scope: sign in again and reply`);
      return;
    }
    await task.addArtifact(`calendar of ${ctx.principal.id}`, { name: 'calendar' });
    await task.complete();
  },
};

let issuer: TestIssuer;
let agent: RunningAgent;

before(async () => {
  issuer = await startIssuer();
  const base = demoCard() as AgentCardBase;
  agent = await serveAgent({
    agent: {
      card: {
        ...base,
        capabilities: { streaming: true },
        securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
        securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      },
      executor: calendarAgent,
    },
    port: 0,
    host: '127.0.0.1',
    shutdownTimeoutMs: 300,
    handler: { auth: { allowPrivateNetworks: true, schemes: { bearer: { jwks: issuer.jwksUrl, issuer: issuer.issuer, audience: AUDIENCE } } } },
  });
});

after(async () => {
  await agent?.close();
  await issuer?.close();
});

test('AUTH_REQUIRED: the client sees it, and the same user resumes the task with a token that has the scope', async () => {
  const url = agent.url;
  const basic = await createClient(url, { auth: bearerToken(await issuer.sign({ sub: 'alice' })) });
  const first = await basic.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'what is on today?' }] } });
  assert.ok('task' in first);
  const task: Task = first.task;
  assert.equal(task.status.state, 'TASK_STATE_AUTH_REQUIRED');
  assert.match(task.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join('') ?? '', /calendar:read/);

  // Someone else cannot pick the task up, whatever their scopes.
  const mallory = await createClient(url, { auth: bearerToken(await issuer.sign({ sub: 'mallory', scope: SCOPE })) });
  await assert.rejects(
    mallory.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', taskId: task.id, parts: [{ text: 'done' }] } }),
    (e: { reason?: string }) => e.reason === 'TASK_NOT_FOUND',
  );

  // The same user, signed in again with the scope, resumes it.
  const upgraded = await createClient(url, { auth: bearerToken(await issuer.sign({ sub: 'alice', scope: SCOPE })) });
  const resumed = await upgraded.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', taskId: task.id, parts: [{ text: 'signed in' }] } });
  assert.ok('task' in resumed);
  assert.equal(resumed.task.status.state, 'TASK_STATE_COMPLETED');
  assert.match(resumed.task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')).join('') ?? '', /calendar of .*alice/);
});

test('the CLI tells the user how to continue an AUTH_REQUIRED task with new credentials', () => {
  const task: Task = { id: 't-1', contextId: 'c', status: { state: 'TASK_STATE_AUTH_REQUIRED' } };
  const hint = inputHint(task, { url: 'http://agent', style: createStyle(false) });
  assert.match(hint, /new credentials: A2A_TOKEN=… a2a send http:\/\/agent "<answer>" --task t-1/);
  assert.equal(inputHint({ ...task, status: { state: 'TASK_STATE_WORKING' } }, { url: 'u', style: createStyle(false) }), '');
});
