/**
 * The Prometheus text exposition format (0.0.4), small and dependency-free: counters, gauges and
 * histograms with fixed label names, rendered with their HELP and TYPE lines, label values
 * escaped, histogram buckets cumulative with `+Inf`, `_sum` and `_count`.
 */

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A metric family: one name, one help text, fixed label names, samples per label values. */
abstract class Family<V> {
  protected readonly series = new Map<string, { values: readonly string[]; value: V }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[] = [],
  ) {}

  abstract readonly type: 'counter' | 'gauge' | 'histogram';

  protected entry(values: readonly string[], initial: () => V): { value: V } {
    if (values.length !== this.labelNames.length) throw new TypeError(`${this.name}: ${this.labelNames.length} label values expected`);
    const key = values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { values: [...values], value: initial() }));
    return entry;
  }

  /** The family's lines, HELP and TYPE first. */
  render(): string {
    let text = `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} ${this.type}\n`;
    for (const { values, value } of this.series.values()) text += this.sample(values, value);
    return text;
  }

  protected abstract sample(values: readonly string[], value: V): string;

  protected labels(values: readonly string[], extra?: string): string {
    const pairs = this.labelNames.map((name, i) => `${name}="${escapeLabel(values[i] as string)}"`);
    if (extra) pairs.push(extra);
    return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
  }
}

export class Counter extends Family<number> {
  readonly type = 'counter';

  inc(values: readonly string[], by = 1): void {
    this.entry(values, () => 0).value += by;
  }

  protected sample(values: readonly string[], value: number): string {
    return `${this.name}${this.labels(values)} ${formatNumber(value)}\n`;
  }
}

export class Gauge extends Family<number> {
  readonly type = 'gauge';

  set(values: readonly string[], value: number): void {
    this.entry(values, () => 0).value = value;
  }

  protected sample(values: readonly string[], value: number): string {
    return `${this.name}${this.labels(values)} ${formatNumber(value)}\n`;
  }
}

interface HistogramValue {
  /** Per bucket, the observations at or below its bound (non-cumulative; rendering adds them up). */
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram extends Family<HistogramValue> {
  readonly type = 'histogram';

  constructor(name: string, help: string, spec: { labelNames: readonly string[]; buckets: readonly number[] }) {
    super(name, help, spec.labelNames);
    this.buckets = [...spec.buckets].sort((a, b) => a - b);
  }

  private readonly buckets: readonly number[];

  observe(values: readonly string[], value: number): void {
    const entry = this.entry(values, () => ({ counts: this.buckets.map(() => 0), sum: 0, count: 0 })).value;
    const index = this.buckets.findIndex((bound) => value <= bound);
    if (index >= 0) (entry.counts[index] as number)++;
    entry.sum += value;
    entry.count++;
  }

  protected sample(values: readonly string[], value: HistogramValue): string {
    let text = '';
    let cumulative = 0;
    this.buckets.forEach((bound, i) => {
      cumulative += value.counts[i] as number;
      text += `${this.name}_bucket${this.labels(values, `le="${formatNumber(bound)}"`)} ${cumulative}\n`;
    });
    text += `${this.name}_bucket${this.labels(values, 'le="+Inf"')} ${value.count}\n`;
    text += `${this.name}_sum${this.labels(values)} ${formatNumber(value.sum)}\n`;
    text += `${this.name}_count${this.labels(values)} ${value.count}\n`;
    return text;
  }
}

export type MetricFamily = Counter | Gauge | Histogram;

/** Families in registration order, as one exposition. */
export function renderFamilies(families: readonly MetricFamily[]): string {
  return families.map((f) => f.render()).join('');
}

/** Label values: backslash, double quote and line feed escaped. */
export function escapeLabel(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** HELP text: backslash and line feed escaped. */
function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

function formatNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
