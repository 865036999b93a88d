/** The `a2a` command line. */
import { serveCommand, serveHelp, UsageError } from './commands/serve.js';

const HELP = `Usage: a2a <command> [options]

Commands:
  serve     run an agent (JSON-RPC + HTTP+JSON + Agent Card)

Run "a2a <command> --help" for the options of a command.

Examples:
  a2a serve                            the demo agent on http://localhost:8080
  a2a serve --agent conformance        the conformance (TCK) agent
  a2a serve --agent ./my-agent.ts      your own agent module: export default { card, executor }
`;

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; help: string }> = {
  serve: { run: serveCommand, help: serveHelp },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`a2a: unknown command "${name}"\n\n${HELP}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    const usage = error instanceof UsageError || (error instanceof Error && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    process.stderr.write(`a2a ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    if (usage) process.stderr.write(`\n${command.help}`);
    return usage ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
