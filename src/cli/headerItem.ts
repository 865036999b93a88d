/**
 * A `--header` item, `NAME=VALUE` or `NAME: VALUE`, split into its name and value: one reading
 * for the headers a command sends (args.ts) and the credentials its errors mask (argSecrets.ts).
 * Kept apart from cli.ts, which main.ts loads only with a command.
 */
export function splitHeaderItem(item: string): { name: string; value: string } | undefined {
  const match = /^\s*([^=:\s]+)\s*[=:]\s?(.*)$/.exec(item);
  return match ? { name: match[1] ?? '', value: match[2] ?? '' } : undefined;
}
