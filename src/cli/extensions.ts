/**
 * `--extension URI` on the commands that call the agent (A2A-Extensions, EXT-02), and what the
 * agent activated (its echo, EXT-05): a line after the human output; with `--json`, an
 * `activatedExtensions` member added to the first JSON line printed after each answer — only
 * when `--extension` was given, so that existing `--json` output never changes.
 */
import type { Style } from './render/style.js';
import { UsageError } from './usage.js';

export const EXTENSION_HELP = `  --extension URI    activate an extension (A2A-Extensions; repeatable); the ones the
                     agent activated are shown after the output (--json: the member
                     "activatedExtensions" of the first line after the answer)
`;

/** The --extension values, checked: one URI each (a comma would split it on the wire); repeats dropped. */
export function extensionsOf(list: readonly string[] | undefined): string[] {
  for (const uri of list ?? []) {
    if (!/^[^\s,]+$/.test(uri)) throw new UsageError(`--extension must be one URI, without spaces or commas, got "${uri}"`);
  }
  return [...new Set(list)];
}

/** The extensions asked for, and what the agent's last answer said it activated. */
export class ActivatedExtensions {
  private activated: string[] | undefined;
  /** An answer reported them and no JSON line carried them yet. */
  private pending = false;

  constructor(readonly requested: readonly string[]) {}

  /** The client's onActivatedExtensions. */
  readonly report = (uris: string[]): void => {
    this.activated = uris;
    this.pending = true;
  };

  /** `value` for --json: with `activatedExtensions` on the first object after an answer, when --extension was given. */
  decorate(value: unknown): unknown {
    if (!this.pending || this.requested.length === 0 || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    this.pending = false;
    return { ...value, activatedExtensions: this.activated };
  }

  /** The human line: the activated extensions and the requested ones that were not; '' when there is nothing to say. */
  line(style: Style): string {
    const activated = this.activated ?? [];
    const missing = this.activated === undefined ? [] : this.requested.filter((uri) => !activated.includes(uri));
    if (activated.length === 0 && missing.length === 0) return '';
    const not = missing.length > 0 ? `; not activated: ${missing.join(', ')}` : '';
    return `${style.dim('extensions activated:')} ${activated.join(', ') || 'none'}${not}\n`;
  }
}
