/** RFC 8785 (JCS): the test vectors of the reference implementation, and ES6 number forms. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { canonicalize, canonicalizeToBytes } from '../../src/signing/jcs.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/jcs/${name}`, import.meta.url), 'utf8');

for (const name of ['arrays', 'french', 'structures', 'unicode', 'values', 'weird']) {
  test(`RFC 8785 vector: ${name}`, () => {
    const input: unknown = JSON.parse(fixture(`${name}.input.json`));
    assert.equal(canonicalize(input), fixture(`${name}.output.json`));
  });
}

test('the README sample: numbers, escaping, literals, and its UTF-8 bytes', () => {
  const input = JSON.parse('{"numbers":[1E30,4.50,6,2e-3,0.000000000000000000000000001],"escaping":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","other":[null,true,false]}');
  const out = '{"escaping":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/","numbers":[1e+30,4.5,6,0.002,1e-27],"other":[null,true,false]}';
  assert.equal(canonicalize(input), out);
  // From the README's hex dump: `{"escaping":"` then € as e2 82 ac.
  assert.equal(Buffer.from(canonicalizeToBytes(input)).toString('hex').slice(0, 32), '7b226573636170696e67223a22e282ac');
});

test('ES6 number serialization (RFC 8785 appendix B samples)', () => {
  const cases: [number, string][] = [
    [0, '0'],
    [-0, '0'],
    [1, '1'],
    [-1.5, '-1.5'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [9007199254740992, '9007199254740992'],
    [9007199254740994, '9007199254740994'],
    [295147905179352830000, '295147905179352830000'],
    [1e21, '1e+21'],
    [1e-7, '1e-7'],
    [0.000001, '0.000001'],
    [333333333.3333333, '333333333.3333333'],
    [4.5, '4.5'],
    [2e-3, '0.002'],
  ];
  for (const [n, text] of cases) assert.equal(canonicalize(n), text, String(n));
  assert.throws(() => canonicalize(NaN), TypeError);
  assert.throws(() => canonicalize(Infinity), TypeError);
  assert.throws(() => canonicalize({ a: () => 1 }), TypeError);
});

test('keys sort by UTF-16 code units, not code points or locale; undefined members are skipped', () => {
  // U+1F600 (surrogates D83D DE00) sorts before U+FB33 by code units, after it by code points.
  assert.equal(canonicalize({ '\uFB33': 1, '\u{1F600}': 2, a: 3, B: 4, b: undefined }), '{"B":4,"a":3,"\u{1F600}":2,"\uFB33":1}');
  assert.equal(canonicalize({ b: [{ d: 1, c: 2 }], a: {} }), '{"a":{},"b":[{"c":2,"d":1}]}');
});
