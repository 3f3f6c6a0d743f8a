/**
 * PostgreSQL's units for settings: the one grammar of durations and sizes in paxd — SET/SHOW
 * over the wire, the daemon's config file and environment, and CLI flags.
 *
 * Read as PostgreSQL 15 reads an integer setting with a unit (guc.c: parse_int,
 * convert_to_base_unit, convert_int_from_base_unit; docs "20.1.1 Parameter Names and Values"):
 *
 * - a number as C's strtol reads it with base 0 (leading blanks, a sign, `0x` hex, a leading
 *   `0` octal), re-read as a float (strtod) when it stops at `.`, `e` or `E`;
 * - optional blanks, then optionally a unit, case-sensitive: time `us ms s min h d`, memory
 *   `B kB MB GB TB` (powers of 1024); a bare number is in the setting's base unit;
 * - a fractional value is rounded to a multiple of the next smaller unit, then to an integer
 *   of the base unit, half to even (C's rint): `1.5min` is 90 s, `100us` as milliseconds is 0;
 * - errors are 22023 with PostgreSQL's wording and HINT.
 *
 *   parseSetting(STATEMENT_TIMEOUT, '1.5min')   // 90000 (ms)
 *   formatSetting(STATEMENT_TIMEOUT, 90000)     // '90s'
 *   parseSetting(WORK_MEM, '64MB')              // 65536 (kB)
 *   parseSetting(WORK_MEM, '10 parsecs')        // throws 22023 invalid value for parameter "work_mem": "10 parsecs"
 *                                               //   HINT: Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".
 */
import { PaxdError, SQLSTATE } from './errors.js';

export type TimeUnit = 'us' | 'ms' | 's' | 'min' | 'h' | 'd';
export type MemoryUnit = 'B' | 'kB' | 'MB' | 'GB' | 'TB';
export type Unit = TimeUnit | MemoryUnit;

/** A setting that takes a duration or a size. */
export interface UnitSetting {
  /** Its name, as errors name it (a GUC's, or a paxd config key). */
  readonly name: string;
  /** What a bare number means. */
  readonly unit: Unit;
  /** The valid range, in the base unit. */
  readonly min: number;
  readonly max: number;
  /**
   * PostgreSQL's settings are C ints (past 2147483647: "Value exceeds integer range."); paxd's
   * own may use any safe integer (a 30-day grace in milliseconds does not fit an int).
   */
  readonly wide: boolean;
}

/** Each unit's size in the smallest unit of its family (microseconds, bytes), largest first. */
const TIME: readonly (readonly [TimeUnit, number])[] = [
  ['d', 86_400_000_000],
  ['h', 3_600_000_000],
  ['min', 60_000_000],
  ['s', 1_000_000],
  ['ms', 1000],
  ['us', 1],
];
const MEMORY: readonly (readonly [MemoryUnit, number])[] = [
  ['TB', 1024 ** 4],
  ['GB', 1024 ** 3],
  ['MB', 1024 ** 2],
  ['kB', 1024],
  ['B', 1],
];

const TIME_HINT = 'Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".';
const MEMORY_HINT = 'Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".';
const RANGE_HINT = 'Value exceeds integer range.';
const INT_MAX = 2147483647;
const INT_MIN = -2147483648;

function familyOf(unit: Unit): readonly (readonly [Unit, number])[] {
  return TIME.some(([u]) => u === unit) ? TIME : MEMORY;
}

/**
 * PostgreSQL's conversion table for one base unit: each unit and its multiplier into the base
 * unit, largest first (guc.c's memory_unit_conversion_table / time_unit_conversion_table). A
 * quotient of two exact integers is the same double as guc.c's `1.0 / 1000`.
 */
function conversions(base: Unit): readonly (readonly [Unit, number])[] {
  const family = familyOf(base);
  const size = family.find(([u]) => u === base)![1];
  return family.map(([u, s]) => [u, s / size] as const);
}

/** A setting of PostgreSQL's: an int with a unit and a range. */
function guc(name: string, unit: Unit, min: number, max: number): UnitSetting {
  return Object.freeze({ name, unit, min, max, wide: false });
}

/** A setting of paxd's own: any non-negative safe integer of its base unit, unless told. */
export function paxdSetting(name: string, unit: Unit, min = 0, max = Number.MAX_SAFE_INTEGER): UnitSetting {
  return Object.freeze({ name, unit, min, max, wide: true });
}

// PostgreSQL 15's settings paxd honours (guc.c ConfigureNamesInt).
export const STATEMENT_TIMEOUT = guc('statement_timeout', 'ms', 0, INT_MAX);
export const LOCK_TIMEOUT = guc('lock_timeout', 'ms', 0, INT_MAX);
export const IDLE_IN_TRANSACTION_SESSION_TIMEOUT = guc('idle_in_transaction_session_timeout', 'ms', 0, INT_MAX);
export const IDLE_SESSION_TIMEOUT = guc('idle_session_timeout', 'ms', 0, INT_MAX);
/** work_mem's base unit is kB, as PostgreSQL's (64kB .. MAX_KILOBYTES on 64-bit servers). */
export const WORK_MEM = guc('work_mem', 'kB', 64, INT_MAX);

// paxd's own settings read by more than one front door (the daemon's config and a CLI flag).
/** Vacuum keeps unreferenced files younger than this: `paxd vacuum --grace`, vacuum_grace_ms, `paxd serve --vacuum-grace`. */
export const VACUUM_GRACE = paxdSetting('vacuum_grace_ms', 'ms');

/** 22023 `invalid value for parameter "work_mem": "lots"`, with PostgreSQL's hint where it gives one. */
export function invalidSettingValue(name: string, value: string, hint?: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid value for parameter "${name}": "${value}"`, hint === undefined ? {} : { hint });
}

/** 22023 `-1 ms is outside the valid range for parameter "statement_timeout" (0 .. 2147483647)`. */
function outsideRange(s: UnitSetting, value: number): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `${value} ${s.unit} is outside the valid range for parameter "${s.name}" (${s.min} .. ${s.max})`);
}

/**
 * The value of `text` in the setting's base unit, an integer; throws 22023 as PostgreSQL's SET
 * does. A number (a JSON or TOML config value) is read as its decimal text.
 *
 *   parseSetting(STATEMENT_TIMEOUT, '30')       // 30 (a bare number is in the base unit, ms)
 *   parseSetting(WORK_MEM, '1.5MB')             // 1536
 */
export function parseSetting(s: UnitSetting, value: string | number): number {
  const text = typeof value === 'number' ? String(value) : value;
  const hint = familyOf(s.unit) === MEMORY ? MEMORY_HINT : TIME_HINT;
  const num = parseCNumber(text);
  if (num === null) throw invalidSettingValue(s.name, text);
  let v = num.value;
  let rest = text.slice(num.end);
  rest = rest.replace(/^[ \t\n\v\f\r]+/, '');
  if (rest !== '') {
    const converted = toBaseUnit(v, rest, s.unit);
    if (converted === null) throw invalidSettingValue(s.name, text, hint);
    v = converted;
  }
  v = rint(v);
  const lo = s.wide ? -Number.MAX_SAFE_INTEGER : INT_MIN;
  const hi = s.wide ? Number.MAX_SAFE_INTEGER : INT_MAX;
  if (!(v >= lo && v <= hi)) throw invalidSettingValue(s.name, text, RANGE_HINT);
  if (v < s.min || v > s.max) throw outsideRange(s, v);
  return v;
}

/**
 * How SHOW prints a value in the base unit: the largest unit that divides it exactly, no space
 * (`90s`, `2min`, `1536kB`); 0 and negative values without a unit (guc.c _ShowOption).
 *
 *   formatSetting(WORK_MEM, 65536)              // '64MB'
 *   formatSetting(STATEMENT_TIMEOUT, 0)         // '0'
 */
export function formatSetting(s: UnitSetting, value: number): string {
  if (!(value > 0)) return String(value);
  for (const [unit, m] of conversions(s.unit)) {
    if (m <= 1 || value % m === 0) return `${value / m}${unit}`;
  }
  return String(value);
}

/**
 * `value` with unit `unitText` in `base`, or null when `unitText` is not a unit of its family
 * (guc.c convert_to_base_unit: at most three characters, then only blanks). A fractional value
 * is rounded to a multiple of the next smaller unit first: 1.5ms is 1500us, 1.0005s is 1000ms.
 */
function toBaseUnit(value: number, unitText: string, base: Unit): number | null {
  const m = /^([^ \t\n\v\f\r]{1,3})[ \t\n\v\f\r]*$/.exec(unitText);
  if (m === null) return null;
  const table = conversions(base);
  const i = table.findIndex(([u]) => u === m[1]);
  if (i < 0) return null;
  let v = value * table[i]![1];
  const next = table[i + 1];
  if (next !== undefined) v = rint(v / next[1]) * next[1];
  return v;
}

/** C's rint under the default rounding mode: to the nearest integer, half to even. */
function rint(x: number): number {
  const r = Math.round(x);
  return (r - x === 0.5 && r % 2 !== 0 ? r - 1 : r) + 0;
}

const BLANK = /[ \t\n\v\f\r]/;

/**
 * A number at the start of `text` as parse_int reads it: strtol(text, &end, 0), re-read with
 * strtod when it stops at '.', 'e' or 'E' or overflows. Null when nothing converts, or when
 * strtod under- or overflows (PostgreSQL gives no hint for these).
 */
function parseCNumber(text: string): { value: number; end: number } | null {
  const l = strtol(text);
  let r: { value: number; end: number; range: boolean };
  const stop = text[l.end];
  if (stop === '.' || stop === 'e' || stop === 'E' || l.range) r = strtod(text);
  else r = l;
  if (r.end === 0 || r.range || Number.isNaN(r.value)) return null;
  return { value: r.value, end: r.end };
}

/** strtol with base 0 over a 64-bit long: end 0 when no digits. */
function strtol(text: string): { value: number; end: number; range: boolean } {
  let i = 0;
  while (i < text.length && BLANK.test(text[i]!)) i++;
  let neg = false;
  if (text[i] === '+' || text[i] === '-') neg = text[i++] === '-';
  let radix = 10;
  if (text[i] === '0' && (text[i + 1] === 'x' || text[i + 1] === 'X') && /[0-9a-fA-F]/.test(text[i + 2] ?? '')) {
    radix = 16;
    i += 2;
  } else if (text[i] === '0') radix = 8;
  const digit = radix === 16 ? /[0-9a-fA-F]/ : radix === 8 ? /[0-7]/ : /[0-9]/;
  const start = i;
  while (i < text.length && digit.test(text[i]!)) i++;
  if (i === start) return { value: 0, end: 0, range: false };
  const big = BigInt(radix === 16 ? `0x${text.slice(start, i)}` : radix === 8 ? `0o${text.slice(start, i)}` : text.slice(start, i));
  const range = big > (neg ? 2n ** 63n : 2n ** 63n - 1n);
  return { value: (neg ? -1 : 1) * Number(big), end: i, range };
}

/** strtod for what parseCNumber hands it: decimal or hex (0x1.8p1) floats. */
function strtod(text: string): { value: number; end: number; range: boolean } {
  const m = /^[ \t\n\v\f\r]*([+-]?)(?:(0[xX])((?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+))([pP][+-]?[0-9]+)?|((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))([eE][+-]?[0-9]+)?)/.exec(text);
  if (m === null) return { value: 0, end: 0, range: false };
  let value: number;
  let nonzero: boolean;
  if (m[2] !== undefined) {
    const [int, frac = ''] = m[3]!.split('.');
    const mantissa = Number(BigInt(`0x${int || '0'}${frac}`));
    value = mantissa * 2 ** (Number((m[4] ?? 'p0').slice(1)) - 4 * frac.length);
    nonzero = /[1-9a-fA-F]/.test(m[3]!);
  } else {
    value = Number(m[5]! + (m[6] ?? ''));
    nonzero = /[1-9]/.test(m[5]!);
  }
  if (m[1] === '-') value = -value;
  // ERANGE: overflow to infinity, or a non-zero number that underflows to zero or a denormal.
  const range = !Number.isFinite(value) || (nonzero && Math.abs(value) < 2.2250738585072014e-308);
  return { value, end: m[0].length, range };
}

/**
 * A value of one unit in another of its family (no rounding): the CLI and config turn a
 * setting's base unit into what the code keeps (work_mem in kB → bytes).
 *
 *   convertUnit(64, 'kB', 'B')   // 65536
 */
export function convertUnit(value: number, from: Unit, to: Unit): number {
  const family = familyOf(from);
  const a = family.find(([u]) => u === from)?.[1];
  const b = family.find(([u]) => u === to)?.[1];
  if (a === undefined || b === undefined) throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: cannot convert ${from} to ${to}`);
  return (value * a) / b;
}
