/**
 * Routes of the application (`routes`) answer for themselves: the agent's CORS policy
 * (`corsOrigins`) does not decorate their responses — a cross-origin read of a route is the
 * route's to allow — and OPTIONS reaches a route that takes any method (else 405), instead of
 * the agent's preflight answer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveAgent } from '../../src/node/serveAgent.js';
import { createDemoAgent } from '../../src/cli/agents/demo.js';
import { testCard } from './support.js';

test('routes are not decorated with the agent\'s CORS headers, and answer OPTIONS themselves', async () => {
  const seen: string[] = [];
  const running = await serveAgent({
    agent: { card: testCard('cors'), executor: createDemoAgent() },
    port: 0,
    handler: { corsOrigins: ['https://app.example'] },
    routes: [
      { path: '/health', handle: (req) => (seen.push(req.method), { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }) },
      { method: 'POST', path: '/hook', handle: () => ({ status: 204, headers: {}, body: '' }) },
    ],
  });
  const origin = { origin: 'https://app.example' };
  try {
    const health = await fetch(`${running.url}/health`, { headers: origin });
    assert.equal(health.status, 200);
    assert.equal(health.headers.get('access-control-allow-origin'), null, 'the agent\'s CORS policy does not cover a route');
    const preflight = await fetch(`${running.url}/health`, { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'GET' } });
    assert.equal(preflight.status, 200);
    assert.deepEqual(seen, ['GET', 'OPTIONS'], 'OPTIONS reached the route');
    const hook = await fetch(`${running.url}/hook`, { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'POST' } });
    assert.equal(hook.status, 405);
    assert.equal(hook.headers.get('access-control-allow-origin'), null);
    // The agent's own paths keep its policy.
    const tasks = await fetch(`${running.url}/a2a/rest/tasks`, { headers: { ...origin, 'a2a-version': '1.0' } });
    assert.equal(tasks.headers.get('access-control-allow-origin'), 'https://app.example');
    await Promise.all([health.text(), preflight.text(), hook.text(), tasks.text()]);
  } finally {
    await running.close();
  }
});
