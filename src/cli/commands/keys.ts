/** `a2a keys generate`: a key pair for signing Agent Cards (`a2a serve --sign-key`). */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { UsageError } from '../usage.js';

export const keysHelp = `Usage: a2a keys generate [options]

Generate a key pair for signing Agent Cards (docs/signing.md): the private key for
"a2a serve --sign-key" and a public JWKS to publish (or give to "a2a card --verify --jwks").

Options:
  --alg ALG        ES256 (default), ES384, ES512, EdDSA (Ed25519), RS256 or PS256
  --out DIR        where to write the files (default: the current directory)
  --kid KID        key id (default: the RFC 7638 JWK thumbprint, which a2a serve derives
                   again from the key, so --sign-kid is not needed); with --kid the private
                   key is written as a JWK, which keeps the kid for a2a serve --sign-key
  --format F       pem (PKCS#8) or jwk (JSON, which keeps kid and alg); default: pem, or jwk
                   with --kid and for PS256. A PEM carries no kid: with --kid and --format pem,
                   give a2a serve the same --sign-kid (the printed command does)
  --force          overwrite existing files
  --json           print {"kid", "alg", "privateKey", "jwks"} (the file paths) as JSON
  -h, --help       this help

Files: signing-key.pem (or signing-key.jwk.json), readable by the owner only, and jwks.json.

Examples:
  a2a keys generate --out keys
  a2a serve --sign-key keys/signing-key.pem --sign-jku https://agent.example.com/jwks.json
  a2a card https://agent.example.com --verify --jwks keys/jwks.json
`;

const ALGS = ['ES256', 'ES384', 'ES512', 'EdDSA', 'RS256', 'PS256'];

export async function keysCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      alg: { type: 'string', default: 'ES256' },
      out: { type: 'string', default: '.' },
      kid: { type: 'string' },
      format: { type: 'string' },
      force: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(keysHelp);
    return 0;
  }
  const [sub, ...rest] = positionals;
  if (sub !== 'generate') throw new UsageError(sub ? `unknown subcommand "${sub}" (a2a keys generate)` : 'missing subcommand: a2a keys generate');
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (!ALGS.includes(values.alg)) throw new UsageError(`--alg must be one of ${ALGS.join(', ')}, got "${values.alg}"`);
  // A PEM file carries no kid and does not say PS256 (it reads as RS256): keep a kid of the
  // user's own, or the PS alg, in a JWK file then, so `a2a serve --sign-key FILE` alone signs
  // with the kid that jwks.json names.
  const format = values.format ?? (values.kid !== undefined || values.alg.startsWith('PS') ? 'jwk' : 'pem');
  if (format !== 'pem' && format !== 'jwk') throw new UsageError(`--format must be pem or jwk, got "${format}"`);

  const privatePath = join(values.out, format === 'pem' ? 'signing-key.pem' : 'signing-key.jwk.json');
  const jwksPath = join(values.out, 'jwks.json');
  for (const path of [privatePath, jwksPath]) {
    if (!values.force && existsSync(path)) throw new UsageError(`${path} exists (--force overwrites it)`);
  }
  const { generateSigningKeys } = await import('../../signing/node.js');
  const keys = await generateSigningKeys({ alg: values.alg, format, ...(values.kid ? { kid: values.kid } : {}) });
  await mkdir(values.out, { recursive: true });
  await writeFile(privatePath, keys.privateKey, { mode: 0o600 });
  await writeFile(jwksPath, `${JSON.stringify(keys.jwks, null, 2)}\n`);
  // A PEM with a kid of the user's own: a2a serve would derive the thumbprint instead.
  const serve = `a2a serve --sign-key ${privatePath}${format === 'pem' && values.kid !== undefined ? ` --sign-kid ${keys.kid}` : ''}`;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ kid: keys.kid, alg: keys.alg, privateKey: privatePath, jwks: jwksPath })}\n`);
  } else {
    process.stdout.write(
      `${keys.alg} key ${keys.kid}\n  private key  ${privatePath}  (keep it secret: ${serve})\n  public JWKS  ${jwksPath}  (publish it; a2a card <url> --verify --jwks ${jwksPath})\n`,
    );
  }
  return 0;
}
