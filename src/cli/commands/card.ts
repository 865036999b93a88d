/** `a2a card`: an agent's Agent Card, pretty or raw. */
import { parseArgs } from 'node:util';
import { resolveCard } from '../../client/cardResolver.js';
import { BUILTIN_TRANSPORTS } from '../../client/client.js';
import { selectInterface, type TransportFactory } from '../../client/transport.js';
import type { AgentCard } from '../../protocol/types.js';
import { CLIENT_OPTIONS, CLIENT_OPTIONS_HELP, bindingOf, checkClientFlags, createCli, httpOptions, intOption, positionalsOf, runCommand } from '../cli.js';
import { renderCard } from '../render/card.js';

export const cardHelp = `Usage: a2a card <url> [options]

Fetch and print an agent's Agent Card: name, description, version, provider, interfaces
(* marks the one a2a would use), capabilities, security schemes, modes and skills.
<url> is the agent's base URL (the card is read from <url>/.well-known/agent-card.json)
or the card's own URL ending in .json. --json prints the card as received.

${CLIENT_OPTIONS_HELP}
Examples:
  a2a card http://localhost:8080
  a2a card https://agent.example.com/custom/card.json --json | jq '.skills[].id'
  a2a card http://localhost:8080 --binding rest          mark the HTTP+JSON interface
`;

/** The URL of the interface a client with these bindings would pick, if any. */
function selectedUrl(card: AgentCard, binding: string | undefined): string | undefined {
  // A stand-in for gRPC, so the choice can be shown without loading grpc-js.
  const grpc: TransportFactory = {
    binding: 'GRPC',
    create() {
      throw new Error('not used');
    },
  };
  try {
    return selectInterface(card, [...BUILTIN_TRANSPORTS, grpc], binding ? [binding] : ['JSONRPC', 'HTTP+JSON']).agentInterface.url;
  } catch {
    return undefined;
  }
}

export async function cardCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: CLIENT_OPTIONS, allowPositionals: true, strict: true });
  if (values.help) {
    process.stdout.write(cardHelp);
    return 0;
  }
  const [url = ''] = positionalsOf(positionals, ['url']);
  checkClientFlags(url, values);
  const binding = bindingOf(values.binding);
  const timeoutMs = intOption(values.timeout, '--timeout', { min: 1 });
  const cli = createCli('card', values);
  return runCommand(cli, async () => {
    const { headers, fetch } = httpOptions(cli, values);
    const card = await resolveCard(url, {
      cache: false,
      headers,
      ...(fetch ? { fetch } : {}),
      ...(timeoutMs ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
    if (cli.json) cli.out(`${JSON.stringify(card, null, 2)}\n`);
    else cli.out(renderCard(card, { style: cli.style, selectedUrl: selectedUrl(card, binding) }));
    return 0;
  });
}
