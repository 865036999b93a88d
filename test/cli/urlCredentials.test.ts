/**
 * R23: a user name or password in a URL never shows. `<url>` with one is a usage error (exit 2)
 * that does not repeat it, and a URL the CLI prints — in an error, with --json, in --verbose
 * lines — has its password (or a lone user name) replaced by `***`, also when it comes from
 * the agent's card.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { redactUserinfo } from '../../src/cli/redact.js';
import { runToExit } from './cliHelpers.js';

const PASSWORD = 'hunter2-SECRET';

/** An agent whose card's only interface URL carries a user name and password. */
let cardServer: http.Server | undefined;
let cardUrl = '';
before(async () => {
  cardServer = http.createServer((_req, res) => {
    const port = (cardServer?.address() as AddressInfo).port;
    const card = {
      name: 'userinfo agent',
      description: 'its interface URL holds credentials',
      version: '1.0.0',
      supportedInterfaces: [{ url: `http://bob:${PASSWORD}@127.0.0.1:${port}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
  });
  await new Promise<void>((resolve) => cardServer?.listen(0, '127.0.0.1', resolve));
  cardUrl = `http://127.0.0.1:${(cardServer.address() as AddressInfo).port}`;
});
after(() => cardServer?.close());

describe('credentials in URLs (R23)', { concurrency: 2 }, () => {
  test('R23 <url> with user:password → exit 2, usage error naming the auth options, the password nowhere (--json, -v)', async () => {
    for (const command of [['send', `http://alice:${PASSWORD}@localhost:18080`, 'hi'], ['card', `http://alice:${PASSWORD}@localhost:18080`]]) {
      const r = await runToExit([...command, '--json', '-v']);
      assert.equal(r.code, 2, r.stderr);
      const { error } = JSON.parse(r.stdout) as { error: { type: string; message: string } };
      assert.equal(error.type, 'usage');
      assert.match(error.message, /^<url> must not contain a user name or password, got "http:\/\/alice:\*\*\*@localhost:18080\/": authenticate with --api-key/);
      assert.ok(!r.stdout.includes(PASSWORD) && !r.stderr.includes(PASSWORD), `${r.stdout}\n${r.stderr}`);
    }
  });

  test('R23 a URL that does not parse, whose password holds a space or a quote: the usage error still masks it (<url>, --file, <webhook-url>)', async () => {
    const secret = "hun ter'2<SECRET>";
    for (const command of [
      ['get', `http://alice:${secret}@[::1`, 'T1'],
      ['send', 'http://localhost:1', 'hi', '--file', `http://bob:${secret}@ex ample.com/a`],
      ['push', 'create', 'http://localhost:1', 'T1', `http://carol:${secret}@[::1`],
    ]) {
      const r = await runToExit([...command, '--json']);
      assert.equal(r.code, 2, r.stderr);
      assert.ok(!r.stdout.includes('SECRET') && !r.stderr.includes('SECRET'), `${r.stdout}\n${r.stderr}`);
      assert.match((JSON.parse(r.stdout) as { error: { message: string } }).error.message, /:\*\*\*@/);
    }
  });

  test('R23 an interface URL from the card with user:password: the error and the --verbose lines show user:***@', async () => {
    const r = await runToExit(['send', cardUrl, 'hi', '--json', '-v']);
    assert.equal(r.code, 4, r.stderr);
    assert.ok(!r.stdout.includes(PASSWORD) && !r.stderr.includes(PASSWORD), `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /sendMessage via JSONRPC http:\/\/bob:\*\*\*@127\.0\.0\.1:\d+\/a2a\/jsonrpc/);
    assert.match((JSON.parse(r.stdout) as { error: { message: string } }).error.message, /http:\/\/bob:\*\*\*@127\.0\.0\.1/);
  });

  test('R23 redactUserinfo: the password (the userinfo runs to the last @ of the authority), a lone user name (a token?) whole; nothing else', () => {
    assert.equal(redactUserinfo('reach http://alice:pw@h:1/p?x=y@z then'), 'reach http://alice:***@h:1/p?x=y@z then');
    assert.equal(redactUserinfo('http://a:b@c:d@h/'), 'http://a:***@h/');
    assert.equal(redactUserinfo('https://ghp_TOKEN@github.com/x'), 'https://***@github.com/x');
    assert.equal(redactUserinfo('"url":"https://h/p","mail":"a@b.c"'), '"url":"https://h/p","mail":"a@b.c"');
    assert.equal(redactUserinfo('http://h/?next=http://u:p@i/'), 'http://h/?next=http://u:***@i/');
  });
});
