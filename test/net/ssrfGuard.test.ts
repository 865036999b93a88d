/**
 * The SSRF guard's pure parts (R14): address classification for both families (special ranges,
 * IPv4 embedded in mapped/NAT64/6to4 IPv6), synchronous URL vetting, and resolution where every
 * answer must be public. The network matrix with real listeners is in guardedFetch.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SsrfBlockedError, addressBlock, isPublicAddress, redactUrl, resolveVetted, vetUrl, type LookupAll } from '../../src/net/index.js';

const ADDRESS_TABLE: Array<[string, boolean]> = [
  // IPv4: public
  ['8.8.8.8', true],
  ['1.1.1.1', true],
  ['93.184.216.34', true],
  ['9.255.255.255', true],
  ['11.0.0.0', true],
  ['100.63.255.255', true],
  ['100.128.0.0', true],
  ['126.255.255.255', true],
  ['128.0.0.0', true],
  ['169.253.255.255', true],
  ['169.255.0.0', true],
  ['172.15.255.255', true],
  ['172.32.0.0', true],
  ['192.0.1.1', true],
  ['192.0.3.1', true],
  ['192.88.98.1', true],
  ['192.167.255.255', true],
  ['192.169.0.0', true],
  ['198.17.255.255', true],
  ['198.20.0.0', true],
  ['198.51.99.1', true],
  ['203.0.112.1', true],
  ['223.255.255.255', true],
  // IPv4: not public
  ['0.0.0.0', false],
  ['0.255.255.255', false],
  ['10.0.0.1', false],
  ['10.255.255.255', false],
  ['100.64.0.1', false],
  ['100.127.255.255', false],
  ['127.0.0.1', false],
  ['127.255.255.254', false],
  ['169.254.169.254', false],
  ['169.254.0.1', false],
  ['172.16.0.1', false],
  ['172.31.255.255', false],
  ['192.0.0.1', false],
  ['192.0.0.170', false],
  ['192.0.2.1', false],
  ['192.88.99.1', false],
  ['192.168.0.1', false],
  ['192.168.255.255', false],
  ['198.18.0.1', false],
  ['198.19.255.255', false],
  ['198.51.100.7', false],
  ['203.0.113.9', false],
  ['224.0.0.1', false],
  ['239.255.255.250', false],
  ['240.0.0.1', false],
  ['255.255.255.255', false],
  // IPv6: public
  ['2606:4700:4700::1111', true],
  ['2001:4860:4860::8888', true],
  ['2a00:1450:4001:82b::200e', true],
  ['2001:200::1', true],
  ['2001:db9::1', true],
  ['[2606:4700:4700::1111]', true],
  ['::ffff:8.8.8.8', true],
  ['::ffff:808:808', true],
  ['64:ff9b::808:808', true],
  ['64:ff9b::8.8.8.8', true],
  ['2002:808:808::1', true],
  // IPv6: not public
  ['::', false],
  ['::1', false],
  ['[::1]', false],
  ['0:0:0:0:0:0:0:1', false],
  ['::ffff:127.0.0.1', false],
  ['::ffff:7f00:1', false],
  ['::ffff:169.254.169.254', false],
  ['::ffff:a00:1', false],
  ['::ffff:0.0.0.0', false],
  ['::127.0.0.1', false],
  ['::8.8.8.8', false],
  ['64:ff9b::127.0.0.1', false],
  ['64:ff9b::a9fe:a9fe', false],
  ['64:ff9b:1::8.8.8.8', false],
  ['2002:7f00:1::1', false],
  ['2002:a9fe:a9fe::', false],
  ['2002:c0a8:101::1', false],
  ['fc00::1', false],
  ['fd12:3456:789a::1', false],
  ['fe80::1', false],
  ['fe80::1%eth0', false],
  ['febf::1', false],
  ['fec0::1', false],
  ['ff02::1', false],
  ['ff05::1:3', false],
  ['2001:db8::1', false],
  ['2001:db8:ffff::1', false],
  ['3fff::1', false],
  ['100::1', false],
  ['2001::1', false],
  ['2001:2::1', false],
  ['2001:10::1', false],
  ['5f00::1', false],
  ['1::1', false],
  ['4000::1', false],
  // Not addresses at all
  ['', false],
  ['localhost', false],
  ['example.com', false],
  ['127.1', false],
  ['2130706433', false],
  ['0x7f.0.0.1', false],
  ['1.2.3.256', false],
  ['::ffff:1.2.3', false],
];

test('isPublicAddress: special ranges of both families, embedded IPv4, non-addresses', () => {
  const wrong = ADDRESS_TABLE.filter(([ip, expected]) => isPublicAddress(ip) !== expected);
  assert.deepEqual(wrong, [], 'rows classified wrongly');
  assert.ok(ADDRESS_TABLE.length > 100);
});

function blockedWith(reason: string, leaks: string[] = []): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof SsrfBlockedError, `expected SsrfBlockedError, got ${String(error)}`);
    assert.equal(error.reason, reason, error.message);
    for (const leak of leaks) {
      assert.ok(!error.message.includes(leak), `message leaks ${leak}: ${error.message}`);
      assert.ok(!error.url.includes(leak), `url leaks ${leak}: ${error.url}`);
    }
    return true;
  };
}

test('vetUrl: only http and https', () => {
  for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'data:text/plain,hi', 'gopher://example.com/', 'ws://example.com/', 'javascript:alert(1)']) {
    assert.throws(() => vetUrl(url), blockedWith('scheme'), url);
    assert.throws(() => vetUrl(url, { allowPrivate: true }), blockedWith('scheme'), url);
  }
  assert.equal(vetUrl('https://example.com/hook').hostname, 'example.com');
  assert.equal(vetUrl('http://example.com:8080/hook').port, '8080');
});

test('vetUrl: no userinfo, and neither the error nor its url carries the credentials or the query', () => {
  for (const url of ['http://user:pass@example.com/', 'https://user@example.com/', 'http://:pass@example.com/']) {
    assert.throws(() => vetUrl(url), blockedWith('userinfo', ['pass', 'user@']), url);
    assert.throws(() => vetUrl(url, { allowPrivate: true }), blockedWith('userinfo', ['pass', 'user@']), url);
  }
  assert.throws(
    () => vetUrl('http://admin:s3cret@127.0.0.1/hook?token=t0ken#frag'),
    blockedWith('userinfo', ['s3cret', 'admin', 't0ken', 'frag']),
  );
  assert.throws(() => vetUrl('http://127.0.0.1/hook?token=t0ken'), blockedWith('address', ['t0ken']));
  assert.throws(() => vetUrl('not a url :s3cret@x?token=t0ken'), blockedWith('url', ['s3cret', 't0ken']));
});

test('vetUrl: localhost names and non-public literals (in every spelling the URL parser accepts)', () => {
  const urls = [
    'http://localhost/',
    'http://LOCALHOST:8080/',
    'http://localhost./',
    'http://api.localhost/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]:8080/',
    'http://127.1:8080/',
    'http://2130706433:8080/',
    'http://0x7f.0.0.1:8080/',
    'http://0177.0.0.1/',
    'http://127.0.0.1./',
    'http://[::ffff:127.0.0.1]:8080/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://0:8080/',
    'http://10.0.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'https://192.168.1.1/',
  ];
  for (const url of urls) {
    const reason = new URL(url).hostname.includes('localhost') ? 'host' : 'address';
    assert.throws(() => vetUrl(url), blockedWith(reason), url);
    assert.doesNotThrow(() => vetUrl(url, { allowPrivate: true }), url);
  }
  assert.doesNotThrow(() => vetUrl('http://8.8.8.8/'));
  assert.doesNotThrow(() => vetUrl('http://[2606:4700:4700::1111]/'));
  assert.doesNotThrow(() => vetUrl('http://notlocalhost.example/'));
});

test('R23 redactUrl keeps scheme, host and port only: userinfo, path, query and fragment may be secrets', () => {
  assert.equal(redactUrl('https://u:p@example.com:8443/a/b?x=1#f'), 'https://example.com:8443/…');
  assert.equal(redactUrl(new URL('http://example.com/?k=v')), 'http://example.com/…');
  assert.equal(redactUrl('https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX'), 'https://hooks.slack.com/…');
  assert.equal(redactUrl('https://discord.com/api/webhooks/123/tok3n'), 'https://discord.com/…');
  assert.equal(redactUrl('http://[::1]:9090/'), 'http://[::1]:9090/');
  assert.equal(redactUrl('not a url /secret'), '(unparsable URL)');
});

test('R23 the SSRF guard names a refused URL without its path', () => {
  assert.throws(
    () => vetUrl('http://127.0.0.1:9/services/T000/B000/XXXXsecretXXXX'),
    (error: unknown) => error instanceof SsrfBlockedError && !error.message.includes('secret') && error.url === 'http://127.0.0.1:9/…',
  );
});

test('R12 addressBlock: IPv4 as is (also IPv4-mapped), IPv6 by its /64', () => {
  assert.equal(addressBlock('203.0.113.9'), '203.0.113.9');
  assert.equal(addressBlock('::ffff:203.0.113.9'), '203.0.113.9');
  assert.equal(addressBlock('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressBlock('2001:db8:1:2:bbbb::2'), addressBlock('2001:0db8:0001:0002::ffff'));
  assert.notEqual(addressBlock('2001:db8:1:3::1'), addressBlock('2001:db8:1:2::1'));
});

function resolver(answers: Array<{ address: string; family: 4 | 6 }>): LookupAll {
  return async () => answers;
}

test('resolveVetted: literals are taken as they are, names through the resolver', async () => {
  let calls = 0;
  const lookup: LookupAll = async () => {
    calls++;
    return [{ address: '93.184.216.34', family: 4 }];
  };
  assert.deepEqual(await resolveVetted(new URL('http://8.8.8.8/'), { lookup }), { address: '8.8.8.8', family: 4 });
  assert.deepEqual(await resolveVetted(new URL('http://[2606:4700:4700::1111]/'), { lookup }), {
    address: '2606:4700:4700::1111',
    family: 6,
  });
  assert.equal(calls, 0, 'no lookup for IP literals');
  assert.deepEqual(await resolveVetted(new URL('http://hook.example/'), { lookup }), { address: '93.184.216.34', family: 4 });
  assert.equal(calls, 1);
});

test('resolveVetted: every answer must be public', async () => {
  const cases: Array<Array<{ address: string; family: 4 | 6 }>> = [
    [{ address: '127.0.0.1', family: 4 }],
    [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ],
    [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '::1', family: 6 },
    ],
    [{ address: '::ffff:169.254.169.254', family: 6 }],
    [{ address: '10.1.2.3', family: 4 }],
  ];
  for (const answers of cases) {
    await assert.rejects(resolveVetted(new URL('http://hook.example/'), { lookup: resolver(answers) }), blockedWith('address'));
    const allowed = await resolveVetted(new URL('http://hook.example/'), { lookup: resolver(answers), allowPrivate: true });
    assert.equal(allowed.address, answers[0]?.address);
  }
});

test('resolveVetted: resolver failures, empty and garbage answers are blocked as resolve errors', async () => {
  const failing: LookupAll = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND hook.example'), { code: 'ENOTFOUND' });
  };
  await assert.rejects(resolveVetted(new URL('http://hook.example/'), { lookup: failing }), blockedWith('resolve'));
  await assert.rejects(resolveVetted(new URL('http://hook.example/'), { lookup: resolver([]) }), blockedWith('resolve'));
  await assert.rejects(
    resolveVetted(new URL('http://hook.example/'), { lookup: resolver([{ address: 'not-an-ip', family: 4 }]), allowPrivate: true }),
    blockedWith('resolve'),
  );
});

test('resolveVetted re-checks the URL (scheme, userinfo, localhost) before resolving', async () => {
  let calls = 0;
  const lookup: LookupAll = async () => {
    calls++;
    return [{ address: '93.184.216.34', family: 4 }];
  };
  await assert.rejects(resolveVetted(new URL('ftp://hook.example/'), { lookup }), blockedWith('scheme'));
  await assert.rejects(resolveVetted(new URL('http://u:p@hook.example/'), { lookup }), blockedWith('userinfo'));
  await assert.rejects(resolveVetted(new URL('http://localhost/'), { lookup }), blockedWith('host'));
  assert.equal(calls, 0);
});
