/** `a2a card`: an agent's Agent Card, pretty or raw, and its signature checked (--verify). */
import { parseArgs } from 'node:util';
import { cardUrlFor, rawCardOf } from '../../client/cardResolver.js';
import { BUILTIN_TRANSPORTS, fetchCard } from '../../client/client.js';
import { selectInterface, type TransportFactory } from '../../client/transport.js';
import type { AgentCard } from '../../protocol/types.js';
import { bindingOf, positionalsOf } from '../args.js';
import { CLIENT_OPTIONS, CONNECTION_OPTIONS_HELP, exitCodesHelp, createCli, runCommand } from '../cli.js';
import { checkClientFlags, httpOptions, timeoutOf } from '../connect.js';
import { renderCard } from '../render/card.js';
import { defaultBindings } from '../defaultBinding.js';
import { UsageError } from '../usage.js';

export const cardHelp = `Usage: a2a card <url> [options]

Fetch and print an agent's Agent Card: name, description, version, provider, interfaces
(* marks the one a2a would use), capabilities, security schemes, modes and skills.
<url> is the agent's base URL (the card is read from <url>/.well-known/agent-card.json)
or the card's own URL ending in .json. --json prints the card as received.

Signature (docs/signing.md):
  --verify             check the card's signatures; exit 6 when none verifies
  --jwks URL|FILE      trusted public keys (a JWKS); default: the signature's jku URL when it
                       is https on the card's own origin
  --allow-jku URL|ORIGIN  trust a jku on another host: that JWKS URL, or any on that origin
                       (repeatable; implies --verify)
  --trust-jku          follow the signature's jku wherever it points (the card picks its own
                       key: "verified" then only means unchanged since signed; implies --verify)
  --require-signature  an unsigned card fails too (implies --verify)
  --allow-private-jwks fetch JWKS from loopback/private addresses, over http too (development)

${CONNECTION_OPTIONS_HELP}${exitCodesHelp(',\n6 card signature not verified (--verify)')}
Examples:
  a2a card http://localhost:8080
  a2a card https://agent.example.com/custom/card.json --json | jq '.skills[].id'
  a2a card http://localhost:8080 --binding rest          mark the HTTP+JSON interface
  a2a card https://agent.example.com --verify --jwks keys/agent-jwks.json
`;

/** Exit code of `a2a card --verify` when the card's signature does not verify. */
export const EXIT_SIGNATURE = 6;

/** The URL of the interface a client with these bindings would pick, if any. */
function selectedUrl(card: AgentCard, binding: string | undefined): string | undefined {
  // A stand-in for gRPC (1.0 and 0.3, as grpc03Transport), so the choice can be shown without loading grpc-js.
  const grpc: TransportFactory = {
    binding: 'GRPC',
    versions: ['1.0', '0.3'],
    create() {
      throw new Error('not used');
    },
  };
  try {
    return selectInterface(card, [...BUILTIN_TRANSPORTS, grpc], binding ? [binding] : defaultBindings(card)).agentInterface.url;
  } catch {
    return undefined;
  }
}

export async function cardCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...CLIENT_OPTIONS,
      verify: { type: 'boolean', default: false },
      jwks: { type: 'string' },
      'require-signature': { type: 'boolean', default: false },
      'allow-private-jwks': { type: 'boolean', default: false },
      'allow-jku': { type: 'string', multiple: true },
      'trust-jku': { type: 'boolean', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(cardHelp);
    return 0;
  }
  const [url = ''] = positionalsOf(positionals, ['url']);
  checkClientFlags(url, values);
  if (values.extension) throw new UsageError('--extension is for the commands that call the agent; a card is fetched without it');
  const binding = bindingOf(values.binding);
  const timeoutMs = timeoutOf(values);
  const allowJku = values['allow-jku'] ?? [];
  for (const entry of allowJku) if (!/^https?:\/\/[^/]/i.test(entry)) throw new UsageError(`--allow-jku ${entry}: not an http(s) URL or origin`);
  const verify = values.verify || values['require-signature'] || values.jwks !== undefined || values['trust-jku'] || allowJku.length > 0;
  const cli = createCli('card', values);
  return runCommand(cli, async () => {
    const { headers, fetch } = httpOptions(cli, values);
    // Fetched as createClient does (--timeout, else the default limit: TIMEOUT); a 0.3 agent's card is read as every command sees it.
    const card = await fetchCard(url, {
      cardCache: false,
      headers,
      // Shown as received; --verify checks it below and reports rather than throws.
      verifyCardSignatures: 'off',
      fetch: fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs,
    });
    // The card as served: the 0.3 JSON behind a translated card, signatures included.
    const received = rawCardOf(card);
    const verification = verify
      ? // Over the card as served, as resolveCard verifies.
        await verifyCard(received, {
          jwks: values.jwks,
          require: values['require-signature'],
          allowPrivate: values['allow-private-jwks'],
          cardUrl: cardUrlFor(url),
          allowJku,
          trustJku: values['trust-jku'],
        })
      : undefined;
    const failed = verification !== undefined && !verification.verified && (verification.reason !== 'unsigned' || values['require-signature']);
    // --json: the card as received, not its 1.0 translation.
    if (cli.json) cli.out(`${JSON.stringify(verification ? { verification, card: received } : received, null, 2)}\n`);
    else cli.out(renderCard(card, { style: cli.style, selectedUrl: selectedUrl(card, binding) }));
    if (verification && !cli.json) {
      const { style } = cli;
      const line = verification.verified
        ? style.green(`verified (kid ${verification.kid}, ${verification.alg})`)
        : verification.reason === 'unsigned' && !failed
          ? 'not signed'
          : style.red(`NOT verified: ${verification.reason}: ${verification.message}`);
      cli.out(`\nSignature\n  ${line}\n`);
    }
    if (failed && !cli.json) cli.err(`${cli.errStyle.red('a2a card:')} the card's signature did not verify (${verification.reason})\n`);
    return failed ? EXIT_SIGNATURE : 0;
  });
}

export interface CardVerificationReport {
  verified: boolean;
  kid?: string;
  alg?: string;
  /** Why not verified: unsigned, bad-signature, unknown-key, alg-not-allowed, ... */
  reason?: string;
  message?: string;
}

interface VerifyFlags {
  jwks: string | undefined;
  require: boolean | undefined;
  allowPrivate: boolean | undefined;
  /** Where the card came from: a jku on its https origin is trusted. */
  cardUrl: string;
  allowJku: readonly string[];
  trustJku: boolean | undefined;
}

/** Verifies with --jwks (a file, or a URL fetched through the SSRF guard) or a trusted jku. */
async function verifyCard(card: unknown, flags: VerifyFlags): Promise<CardVerificationReport> {
  const { verifyAgentCard, CardSignatureError } = await import('../../signing/cardSignature.js');
  const { guardedJwksFetcher, jwksSource } = await import('../../signing/node.js');
  let jwks: Awaited<ReturnType<typeof jwksSource>> | undefined;
  try {
    jwks = flags.jwks === undefined ? undefined : await jwksSource(flags.jwks);
  } catch (error) {
    throw new UsageError(`--jwks ${flags.jwks}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const result = await verifyAgentCard(card as Record<string, unknown>, {
      ...(jwks ? { jwks } : {}),
      fetchJwks: guardedJwksFetcher(flags.allowPrivate ? { ssrf: { allowPrivate: true } } : {}),
      requireSignature: flags.require === true,
      cardUrl: flags.cardUrl,
      trustedJkus: flags.allowJku,
      ...(flags.trustJku ? { trustJku: true } : {}),
    });
    return { ...result, ...(result.verified ? {} : { message: 'the card has no signatures' }) };
  } catch (error) {
    if (!CardSignatureError.is(error)) throw error;
    return { verified: false, reason: error.reason, message: error.message, ...(error.kid ? { kid: error.kid } : {}) };
  }
}
