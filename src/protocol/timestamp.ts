/**
 * RFC 3339 timestamps as ProtoJSON writes google.protobuf.Timestamp (JSON-04): parsed to seconds
 * and nanos, with impossible dates (February 30, hour 24) refused rather than rolled over as
 * Date.parse would. One parser serves the JSON decoder and the gRPC encoder.
 */

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * RFC 3339 `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` → seconds and nanos, or undefined when the
 * string is not one (including impossible dates such as February 30).
 */
export function parseTimestamp(s: string): { seconds: number; nanos: number } | undefined {
  const digits = (from: number, count: number): number => {
    let n = 0;
    for (let i = from; i < from + count; i++) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return Number.NaN;
      n = n * 10 + c;
    }
    return n;
  };
  if (s.length < 20 || s[4] !== '-' || s[7] !== '-' || (s[10] !== 'T' && s[10] !== 't') || s[13] !== ':' || s[16] !== ':') return undefined;
  const y = digits(0, 4);
  const mo = digits(5, 2);
  const d = digits(8, 2);
  const h = digits(11, 2);
  const mi = digits(14, 2);
  const sec = digits(17, 2);
  if (!(y >= 0 && mo >= 1 && mo <= 12 && h <= 23 && mi <= 59 && sec <= 59 && d >= 1)) return undefined;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (mo === 2 && leap ? 29 : (DAYS_IN_MONTH[mo - 1] as number))) return undefined;
  let i = 19;
  let nanos = 0;
  if (s[i] === '.') {
    const start = ++i;
    while (i < s.length && i - start < 9 && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
    if (i === start) return undefined;
    nanos = digits(start, i - start) * 10 ** (9 - (i - start));
  }
  let offset = 0;
  if ((s[i] === 'Z' || s[i] === 'z') && i + 1 === s.length) {
    offset = 0;
  } else if ((s[i] === '+' || s[i] === '-') && i + 6 === s.length && s[i + 3] === ':') {
    const oh = digits(i + 1, 2);
    const om = digits(i + 4, 2);
    if (!(oh <= 23 && om <= 59)) return undefined;
    offset = (s[i] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  } else {
    return undefined;
  }
  return { seconds: daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset, nanos };
}

/**
 * `t` in UTC as `YYYY-MM-DDTHH:mm:ss.sss[…]Z`: the milliseconds always, the digits below them
 * only when they are not zero (a bound such as `.680999` must not become `.680`, LIST-07).
 */
export function utcTimestamp(t: { seconds: number; nanos: number }): string {
  const iso = new Date(t.seconds * 1000 + Math.floor(t.nanos / 1e6)).toISOString();
  const below = t.nanos % 1e6;
  return below === 0 ? iso : `${iso.slice(0, -1)}${String(below).padStart(6, '0').replace(/0+$/, '')}Z`;
}

/**
 * The instant of `value` in milliseconds since the epoch, rounded UP when it has digits below the
 * millisecond. Stored status timestamps have millisecond precision, so one is ≥ `value` exactly
 * when it is ≥ this (LIST-07's inclusive bound); Date.parse would round down and let `.680` pass
 * a bound of `.680999`. Text that is not RFC 3339 falls back to Date.parse (NaN when unparseable).
 */
export function millisRoundedUp(value: string): number {
  const t = parseTimestamp(value);
  return t === undefined ? Date.parse(value) : t.seconds * 1000 + Math.ceil(t.nanos / 1e6);
}
