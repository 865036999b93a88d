/**
 * A usage error in one line. Node's parseArgs messages are rewritten: "argument is ambiguous"
 * spans three lines, and an unknown option's hint ends in an unbalanced quote
 * (`as in '-- "--bogus"`).
 */

const REWRITES: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^Unknown option '([^']*)'/, (m) => `unknown option ${m[1]} (an argument starting with "-" goes after "--")`],
  [/^Option '(?:-\w, )?([^' ]+)' argument is ambiguous/, (m) => `${m[1]} needs a value (one starting with "-" is written ${m[1]}=-…)`],
  [/^Option '(?:-\w, )?([^' ]+) <value>' argument missing/, (m) => `${m[1]} needs a value`],
  [/^Option '(?:-\w, )?([^' ]+)' does not take an argument/, (m) => `${m[1]} takes no value`],
  [/^Unexpected argument '([^']*)'/, (m) => `unexpected argument "${m[1]}"`],
];

export function usageText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  if (!code.startsWith('ERR_PARSE_ARGS')) return message;
  for (const [pattern, rewrite] of REWRITES) {
    const match = pattern.exec(message);
    if (match) return rewrite(match);
  }
  return message.split('\n')[0] ?? message;
}
