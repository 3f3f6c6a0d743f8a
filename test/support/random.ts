/**
 * Deterministic random data for tests: a seeded RNG and generators of PostgreSQL types,
 * values (biased towards edge values), columns and schemas.
 *
 *   const rng = new Rng(42);
 *   const t = randomType(rng);               // e.g. { id: 'numeric', precision: 38, scale: 0 }
 *   const c = randomColumn(t, 1000, rng, 0.1); // a Column with ~10% NULLs
 *
 * Values are in paxd's stored representation (see Value in src/types/column.ts): bpchar(n)
 * values are already space-padded to n, jsonb values are already normalized as PostgreSQL's
 * jsonb output prints them, unconstrained numerics are in PostgreSQL's output form.
 *
 * Seeds: tests should take their seed from `testSeed()` so that a failure can be replayed
 * with `PAXD_SEED=<n> npm test -- <file>`.
 */
import { ColumnBuilder } from '../../src/types/builder.js';
import type { Column, Value } from '../../src/types/column.js';
import { type Field, type PgType, type TypeId, TYPE_IDS } from '../../src/types/type.js';
import { intervalNotStorable } from '../../src/types/interval.js';
import { arrayNotStorable } from '../../src/types/array.js';
import { objectIdNotStorable } from '../../src/types/object-id.js';
import { unreachable } from '../../src/types/errors.js';

/** mulberry32: tiny, fast, good enough for test data; fully determined by the 32-bit seed. */
export class Rng {
  private state: number;
  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    this.state = this.seed;
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  u32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** An integer in [min, max], both inclusive (|bounds| < 2^53). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A bigint in [min, max], both inclusive. */
  bigint(min: bigint, max: bigint): bigint {
    const span = max - min + 1n;
    let bits = 0n;
    let r = 0n;
    while (bits < BigInt(span.toString(2).length) + 32n) {
      r = (r << 32n) | BigInt(this.u32());
      bits += 32n;
    }
    return min + (r % span);
  }

  /** true with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }

  bytes(n: number): Uint8Array {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = this.u32() & 0xff;
    return b;
  }
}

/** The seed for a test run: $PAXD_SEED if set, else a fixed default (runs are reproducible). */
export function testSeed(fallback = 0x5eed): number {
  const env = process.env['PAXD_SEED'];
  return env !== undefined && env !== '' ? Number(env) >>> 0 : fallback;
}

// ---- types ----

/** A random type over every TypeId, with random typmods where the type takes one. */
/** One column of every stored type, as `[name, SQL type]`, for tests that load all of them. */
export const ALL_STORED_TYPES: readonly (readonly [name: string, type: string])[] = [
  ['i2', 'int2'],
  ['i4', 'int4'],
  ['i8', 'int8'],
  ['f4', 'float4'],
  ['f8', 'float8'],
  ['b', 'bool'],
  ['t', 'text'],
  ['v', 'varchar(5)'],
  ['c', 'char(3)'],
  ['by', 'bytea'],
  ['d', 'date'],
  ['ts', 'timestamp'],
  ['tz', 'timestamptz'],
  ['n', 'numeric(12,3)'],
  ['nu', 'numeric'],
  ['u', 'uuid'],
  ['j', 'jsonb'],
];

export function randomType(rng: Rng): PgType {
  const id: TypeId = rng.pick(TYPE_IDS);
  switch (id) {
    case 'varchar':
      return rng.chance(0.2) ? { id } : { id, length: rng.pick([1, 2, 10, 255, rng.int(1, 100)]) };
    case 'bpchar':
      return rng.chance(0.1) ? { id } : { id, length: rng.pick([1, 3, 10, rng.int(1, 40)]) };
    case 'numeric': {
      const r = rng.int(0, 6);
      if (r === 0) return { id };
      if (r === 1) return { id, precision: 38, scale: 0 };
      if (r === 2) return { id, precision: 38, scale: 38 };
      if (r === 3) return { id, precision: 10, scale: 2 };
      const precision = rng.int(1, 38);
      return { id, precision, scale: rng.int(0, precision) };
    }
    default:
      return { id };
  }
}

// ---- values ----

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Date range of PostgreSQL as days since 1970-01-01: 4714-11-24 BC .. 5874897-12-31. */
export const DATE_MIN_DAYS = -2440588;
export const DATE_MAX_DAYS = 2145042905;
export const DATE_POS_INFINITY = 2147483647;
export const DATE_NEG_INFINITY = -2147483648;

/**
 * Timestamp range as µs since 1970: from 4714-11-24 BC 00:00 up to the largest value below
 * int64 max (PostgreSQL's own range, relative to 2000-01-01, reaches 294276 AD; paxd's
 * 1970-based int64 cannot hold the last ~30 years of it, and int64 max means infinity).
 */
export const TS_MIN_US = -210866803200000000n;
export const TS_MAX_US = I64_MAX - 1n;
export const TS_POS_INFINITY = I64_MAX;
export const TS_NEG_INFINITY = I64_MIN;

const STRINGS = ['', ' ', 'a', 'abc', 'héllo', 'naïve café', '日本語', '😀', 'a😀b', '\t\n', 'x y ', '"quoted"', 'back\\slash', 'NULL', '\\N', 'comma,semi;'];
const CHARS = ['a', 'b', 'z', 'A', '0', ' ', '-', '_', 'é', 'ß', 'ж', '中', '😀', '🎉', '\u00a0', '\\', '"', "'", ',', '\n'];

function randomString(rng: Rng, maxChars: number): string {
  if (rng.chance(0.3)) {
    const s = rng.pick(STRINGS);
    if ([...s].length <= maxChars) return s;
  }
  const n = rng.int(0, maxChars);
  let s = '';
  for (let i = 0; i < n; i++) s += rng.chance(0.7) ? String.fromCharCode(rng.int(0x61, 0x7a)) : rng.pick(CHARS);
  return s;
}

function randomFloat64(rng: Rng): number {
  const r = rng.int(0, 9);
  if (r === 0) return rng.pick([NaN, Infinity, -Infinity, -0, 0, 5e-324, -5e-324, 2.2250738585072014e-308, Number.MAX_VALUE, -Number.MAX_VALUE, 1e21, 1e-7, 0.1, 1.5e-7, 100000, 123456789012345680000, 1e15, 1e16, 1e17]);
  if (r <= 3) return rng.int(-1000000, 1000000) / rng.pick([1, 10, 100, 1000, 7]);
  if (r <= 5) return (rng.next() - 0.5) * 10 ** rng.int(-30, 30);
  // Arbitrary bit patterns cover subnormals and every exponent.
  const dv = new DataView(new ArrayBuffer(8));
  dv.setUint32(0, rng.u32());
  dv.setUint32(4, rng.u32());
  return dv.getFloat64(0);
}

function randomFloat32(rng: Rng): number {
  const r = rng.int(0, 9);
  // biome-ignore lint/suspicious/noApproximativeNumericConstant: a float4 value near pi, not pi
  if (r === 0) return rng.pick([NaN, Infinity, -Infinity, -0, 0, 1.401298464324817e-45, -1.401298464324817e-45, 1.1754943508222875e-38, 3.4028234663852886e38, -3.4028234663852886e38, Math.fround(0.1), Math.fround(1e-7), 1e10, Math.fround(3.14159)]);
  if (r <= 3) return Math.fround(rng.int(-100000, 100000) / rng.pick([1, 10, 100, 8]));
  if (r <= 5) return Math.fround((rng.next() - 0.5) * 10 ** rng.int(-30, 30));
  const dv = new DataView(new ArrayBuffer(4));
  dv.setUint32(0, rng.u32());
  return dv.getFloat32(0);
}

function randomUnconstrainedNumeric(rng: Rng): string {
  const r = rng.int(0, 9);
  if (r === 0) return rng.pick(['NaN', 'Infinity', '-Infinity', '0', '0.0', '-1', '1.50', '0.000001', '99999999999999999999999999999999999999999', '-0.00000000000000000001']);
  const intDigits = rng.int(0, rng.chance(0.2) ? 60 : 10);
  const fracDigits = rng.int(0, rng.chance(0.2) ? 40 : 6);
  let int = '';
  for (let i = 0; i < intDigits; i++) int += String(rng.int(0, 9));
  int = int.replace(/^0+/, '') || '0';
  let frac = '';
  for (let i = 0; i < fracDigits; i++) frac += String(rng.int(0, 9));
  const neg = rng.chance(0.4) && !(/^0*$/.test(int) && /^0*$/.test(frac));
  return (neg ? '-' : '') + int + (frac ? '.' + frac : '');
}

/** |v| < 10^p, biased to 0, ±1 and the extremes ±(10^p - 1). */
function randomUnscaled(rng: Rng, precision: number): bigint {
  const max = 10n ** BigInt(precision) - 1n;
  const r = rng.int(0, 9);
  if (r === 0) return rng.pick([max, -max, 0n, 1n, -1n]);
  if (r <= 3) return rng.bigint(-1000n < -max ? -max : -1000n, 1000n > max ? max : 1000n);
  const digits = rng.int(1, precision);
  const m = 10n ** BigInt(digits) - 1n;
  return rng.bigint(-m, m);
}

// PostgreSQL's jsonb output: keys sorted by (length, bytes), ", " and ": " separators.
function jsonbString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

const utf8 = new TextEncoder();
function compareKeys(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  if (x.length !== y.length) return x.length - y.length;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

function randomJsonb(rng: Rng, depth: number): string {
  const r = rng.int(0, depth >= 2 ? 5 : 7);
  switch (r) {
    case 0:
      return rng.pick(['null', 'true', 'false']);
    case 1:
      return rng.pick(['0', '1', '-1', '1.0', '3.14', '100', '-0.5', '12345678901234567890', '0.000001']);
    case 2:
    case 3:
      return jsonbString(randomString(rng, 6));
    case 4:
    case 5:
      return String(rng.int(-1000, 1000));
    case 6: {
      const n = rng.int(0, 4);
      const items: string[] = [];
      for (let i = 0; i < n; i++) items.push(randomJsonb(rng, depth + 1));
      return '[' + items.join(', ') + ']';
    }
    default: {
      const n = rng.int(0, 4);
      const keys = new Set<string>();
      for (let i = 0; i < n; i++) keys.add(rng.chance(0.5) ? rng.pick(['a', 'b', 'id', 'name', 'é', 'aa', '😀']) : randomString(rng, 5));
      const sorted = [...keys].sort(compareKeys);
      return '{' + sorted.map((k) => jsonbString(k) + ': ' + randomJsonb(rng, depth + 1)).join(', ') + '}';
    }
  }
}

/** A random non-NULL value of `type`, in paxd's stored representation, biased to edge values. */
export function randomValue(type: PgType, rng: Rng): Value {
  switch (type.id) {
    case 'int2':
      return rng.chance(0.2) ? rng.pick([-32768, 32767, 0, -1, 1]) : rng.int(-32768, 32767);
    case 'int4':
      return rng.chance(0.2) ? rng.pick([-2147483648, 2147483647, 0, -1, 1]) : rng.chance(0.5) ? rng.int(-1000, 1000) : rng.int(-2147483648, 2147483647);
    case 'int8':
      return rng.chance(0.2) ? rng.pick([I64_MIN, I64_MAX, 0n, -1n, 1n, 2n ** 53n + 1n]) : rng.chance(0.5) ? BigInt(rng.int(-100000, 100000)) : rng.bigint(I64_MIN, I64_MAX);
    case 'float4':
      return randomFloat32(rng);
    case 'float8':
      return randomFloat64(rng);
    case 'bool':
      return rng.chance(0.5);
    case 'text':
      return randomString(rng, rng.chance(0.05) ? 200 : 12);
    case 'varchar':
      return randomString(rng, Math.min(type.length ?? 30, 30));
    case 'bpchar': {
      if (type.length === undefined) return randomString(rng, 10);
      const chars = [...randomString(rng, type.length)];
      while (chars.length < type.length) chars.push(' ');
      return chars.join('');
    }
    case 'bytea': {
      if (rng.chance(0.15)) return rng.pick([new Uint8Array(0), new Uint8Array([0]), new Uint8Array([0, 0, 255]), new Uint8Array([92, 120])]);
      return rng.bytes(rng.int(0, 24));
    }
    case 'date': {
      const r = rng.int(0, 9);
      if (r === 0) return rng.pick([DATE_MIN_DAYS, DATE_MAX_DAYS, DATE_POS_INFINITY, DATE_NEG_INFINITY, 0, -1, -719528, -719529, 11016, 47482]);
      if (r <= 2) return rng.int(DATE_MIN_DAYS, DATE_MAX_DAYS);
      if (r <= 4) return rng.int(DATE_MIN_DAYS, -719528); // BC and the first centuries AD
      return rng.int(-25000, 60000); // ~1900..2134
    }
    case 'timestamp':
    case 'timestamptz': {
      const r = rng.int(0, 9);
      if (r === 0) return rng.pick([TS_MIN_US, TS_MAX_US, TS_POS_INFINITY, TS_NEG_INFINITY, 0n, -1n, 1n, 946684800000000n, -62135596800000000n - 1n]);
      if (r <= 2) return rng.bigint(TS_MIN_US, TS_MAX_US);
      if (r <= 4) return rng.bigint(TS_MIN_US, -62135596800000000n); // BC
      const secs = BigInt(rng.int(-2208988800, 5000000000)); // 1900..2128
      return secs * 1000000n + (rng.chance(0.3) ? 0n : BigInt(rng.int(0, 999999)));
    }
    case 'numeric':
      return type.precision === undefined ? randomUnconstrainedNumeric(rng) : randomUnscaled(rng, type.precision);
    case 'uuid':
      return rng.chance(0.1) ? rng.pick([new Uint8Array(16), new Uint8Array(16).fill(255)]) : rng.bytes(16);
    case 'jsonb':
    case 'json':
      return randomJsonb(rng, 0);
    case 'interval':
      return intervalNotStorable('randomValue');
    case 'oid':
    case 'xid':
    case 'regclass':
    case 'regtype':
    case 'regproc':
    case 'regprocedure':
    case 'regnamespace':
    case 'regrole':
    case 'regoper':
    case 'name':
    case 'char':
    case 'int2vector':
    case 'oidvector':
      return objectIdNotStorable('randomValue');
    case 'array':
      return arrayNotStorable('randomValue');
    default:
      return unreachable(type.id);
  }
}

/** A column of n random values with NULLs at `nullRate`, built with ColumnBuilder. */
export function randomColumn(type: PgType, n: number, rng: Rng, nullRate = 0): Column {
  const b = new ColumnBuilder(type, n);
  for (let i = 0; i < n; i++) b.append(nullRate > 0 && rng.chance(nullRate) ? null : randomValue(type, rng));
  return b.finish();
}

/** nCols random fields c1..cn with field ids 1..n; about a quarter are NOT NULL. */
export function randomSchema(rng: Rng, nCols: number): Field[] {
  const fields: Field[] = [];
  for (let i = 1; i <= nCols; i++) fields.push({ name: `c${i}`, type: randomType(rng), notNull: rng.chance(0.25), fieldId: i });
  return fields;
}
