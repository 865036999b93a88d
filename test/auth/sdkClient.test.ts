/**
 * Interop: the official @a2a-js/sdk client authenticating against our server with a bearer JWT
 * through its AuthenticationHandler (createAuthenticatingFetchWithRetry), over JSON-RPC and
 * HTTP+JSON; without the handler it is refused.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory, createAuthenticatingFetchWithRetry, type AuthenticationHandler } from '@a2a-js/sdk/client';
import { AUDIENCE, startIssuer, startSecured, type SecuredAgent, type TestIssuer } from './support.js';

let issuer: TestIssuer;
let server: SecuredAgent;

before(async () => {
  issuer = await startIssuer();
  server = await startSecured({
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
    securityRequirements: [{ schemes: { bearer: {} } }],
    auth: { allowPrivateNetworks: true, schemes: { bearer: { jwks: issuer.jwksUrl, issuer: issuer.issuer, audience: AUDIENCE } } },
  });
});

after(async () => {
  await server?.close();
  await issuer?.close();
});

function request(text: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: `sdk-${Date.now()}-${text}`, role: 'ROLE_USER', parts: [{ text }] } });
}

function factory(binding: 'JSONRPC' | 'HTTP+JSON', fetchImpl: typeof fetch): ClientFactory {
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [binding],
    }),
  );
}

for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
  test(`SDK client over ${binding}: bearer token via AuthenticationHandler; the principal reaches the agent`, async () => {
    const token = await issuer.sign({ sub: 'sdk-user' });
    let retried = 0;
    const handler: AuthenticationHandler = {
      headers: async () => ({}),
      // The first request goes without credentials; the 401 + WWW-Authenticate triggers a retry.
      shouldRetryWithHeaders: async (_req, res) => {
        if (res.status !== 401 || !/^Bearer/.test(res.headers.get('www-authenticate') ?? '')) return undefined;
        retried++;
        return { authorization: `Bearer ${token}` };
      },
    };
    const client = await factory(binding, createAuthenticatingFetchWithRetry(fetch, handler)).createFromUrl(server.agent.url);
    const result = await client.sendMessage(request('hello'));
    const parts = 'parts' in result ? result.parts : [];
    const text = parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    assert.equal(text, `principal=${issuer.issuer}|sdk-user scheme=bearer scopes=`);
    assert.equal(retried, 1);
  });

  test(`SDK client over ${binding} without credentials is refused`, async () => {
    const client = await factory(binding, fetch).createFromUrl(server.agent.url);
    await assert.rejects(client.sendMessage(request('no auth')));
  });
}
