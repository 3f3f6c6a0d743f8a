/**
 * Typed field parsers: one loop per column kind over a tokenized block (./tokenizer.ts), writing
 * values straight into the batch's buffers (./columns.ts) — no string, object or closure per
 * field on the fast paths.
 *
 * Each fast path accepts only the plainest spelling of its type (`-123`, `12.50`,
 * `1998-01-02`, `1998-01-02 03:04:05.123456`, `t`) and hands anything else — whitespace,
 * exponents, too many digits, out-of-range parts, `infinity`, errors — to parseText
 * (../../types/text-io.ts) on the decoded string, so values, messages and SQLSTATEs are
 * always PostgreSQL's. Tests check every fast path against parseText.
 *
 * Rows are written at consecutive indexes from `base`, skipping rows the block has marked bad.
 * A row that fails here is marked bad through the context; the block is then parsed again
 * without it (the reader's job), so a bad row never shifts or poisons its neighbours.
 */
import { DAYS_IN_MONTH, UNIX_EPOCH_JD, date2j, isLeap, type TimeZone, UTC, type Value, PaxdError, unreachable, parseText } from '../../types/index.js';
import { type ColumnBuffer, FastPath } from './columns.js';
import { type CsvTokenizer, FIELD_NULL, FIELD_PLAIN } from './tokenizer.js';

/** What a field parser needs from the block being parsed. */
export interface BlockContext {
  readonly tok: CsvTokenizer;
  /** The bytes the tokenizer saw (FIELD_PLAIN offsets point here). */
  readonly buf: Buffer;
  /** Per record: 0 = good so far; anything else asks skip(). */
  readonly bad: Uint8Array;
  /** The block's bytes are all ASCII (characters = bytes). */
  readonly ascii: boolean;
  /** Called for a record with bad[r] !== 0 at input position p; true = leave the row out. */
  skip(r: number, p: number): boolean;
  /** Field p of record r does not parse. */
  fail(r: number, p: number, e: PaxdError): void;
  /** The zone timestamptz fields without an offset are read in (COPY FROM in a session's TimeZone). */
  readonly timeZone: TimeZone;
  /** Record r has a NULL in a NOT NULL column (checked after all its fields, as PostgreSQL does). */
  nullInNotNull(r: number, col: ColumnBuffer): void;
}

const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const SPACE = 32;
const TWO32 = 4294967296;
const TWO53 = 9007199254740992;
const P10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** Parses input position p of the block into `col`, rows from `base`; returns the next row index. */
export function parseColumn(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  switch (col.kind) {
    case FastPath.Int2:
      return int2Loop(ctx, col, p, base);
    case FastPath.Int4:
      return int4Loop(ctx, col, p, base);
    case FastPath.Int8:
      return int8Loop(ctx, col, p, base);
    case FastPath.Float4:
    case FastPath.Float8:
      return floatLoop(ctx, col, p, base);
    case FastPath.Bool:
      return boolLoop(ctx, col, p, base);
    case FastPath.Decimal:
      return decimalLoop(ctx, col, p, base);
    case FastPath.Date:
      return dateLoop(ctx, col, p, base);
    case FastPath.Timestamp:
    case FastPath.Timestamptz:
      return timestampLoop(ctx, col, p, base);
    case FastPath.Text:
      return textLoop(ctx, col, p, base);
    case FastPath.Varchar:
      return varcharLoop(ctx, col, p, base);
    case FastPath.Bpchar:
      return bpcharLoop(ctx, col, p, base);
    case FastPath.Generic:
      return genericLoop(ctx, col, p, base);
    default:
      return unreachable(col.kind);
  }
}

/** The general path: parseText on the decoded field. false (and the row marked bad) on error. */
function slowField(ctx: BlockContext, col: ColumnBuffer, src: Buffer, s: number, e: number, r: number, p: number, o: number): boolean {
  let v: Value;
  try {
    v = parseText(col.field.type, src.toString('utf8', s, e), ctx.timeZone);
  } catch (err) {
    if (err instanceof PaxdError) {
      ctx.fail(r, p, err);
      return false;
    }
    throw err;
  }
  col.writeValue(o, v);
  return true;
}

function nullAt(ctx: BlockContext, col: ColumnBuffer, r: number, o: number): void {
  col.setNull(o);
  if (col.field.notNull) ctx.nullInNotNull(r, col);
}

/** Writes an integer-valued double |x| < 2^53 as int64 words (no BigInt). */
function putI64(w: Int32Array, o: number, x: number): void {
  const hi = Math.floor(x / TWO32);
  w[2 * o] = (x - hi * TWO32) | 0;
  w[2 * o + 1] = hi | 0;
}

// ---- integers: [-+]?[0-9]+, few enough digits that no overflow is possible ----

function int2Loop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const vals = col.i16!;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    let i = s;
    let neg = false;
    if (i < e) {
      const c = src[i]!;
      if (c === MINUS) {
        neg = true;
        i++;
      } else if (c === PLUS) i++;
    }
    const ds = i;
    let v = 0;
    for (; i < e; i++) {
      const d = src[i]! - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (i === e && i > ds && i - ds <= 4) vals[o] = neg ? -v : v;
    else if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
    o++;
  }
  return o;
}

function int4Loop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const vals = col.i32!;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    let i = s;
    let neg = false;
    if (i < e) {
      const c = src[i]!;
      if (c === MINUS) {
        neg = true;
        i++;
      } else if (c === PLUS) i++;
    }
    const ds = i;
    let v = 0;
    for (; i < e; i++) {
      const d = src[i]! - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (i === e && i > ds && i - ds <= 9) vals[o] = neg ? -v : v;
    else if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
    o++;
  }
  return o;
}

function int8Loop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const words = col.i32!;
  const vals = col.i64!;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    let i = s;
    let neg = false;
    if (i < e) {
      const c = src[i]!;
      if (c === MINUS) {
        neg = true;
        i++;
      } else if (c === PLUS) i++;
    }
    const ds = i;
    let v = 0;
    for (; i < e && i - ds < 15; i++) {
      const d = src[i]! - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (i === e && i > ds) {
      putI64(words, o, neg ? -v : v);
    } else if (i - ds === 15 && e - ds <= 18) {
      // 16 to 18 digits: always within int64; finish in BigInt.
      let lo = 0;
      const j0 = i;
      for (; i < e; i++) {
        const d = src[i]! - 48;
        if (d < 0 || d > 9) break;
        lo = lo * 10 + d;
      }
      if (i === e) {
        const x = BigInt(v) * BigInt(P10[e - j0]!) + BigInt(lo);
        vals[o] = neg ? -x : x;
      } else if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
    } else if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
    o++;
  }
  return o;
}

// ---- floats: [-+]?digits[.digits][(e|E)[-+]digits], exact by Clinger's fast path ----

function floatLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const f64 = col.f64;
  const f32 = col.f32;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    const x = scanFloat(src, s, e);
    if (x === x) {
      if (f64 !== null) {
        f64[o] = x;
        o++;
        continue;
      }
      // float4: the double is within half an ulp of the decimal; if nudging it either way
      // lands on the same float, rounding the decimal directly would too.
      const y = Math.fround(x);
      if (Math.fround(x * (1 - 2 ** -50)) === y && Math.fround(x * (1 + 2 ** -50)) === y && (y !== 0 || x === 0) && Math.abs(y) !== Infinity) {
        f32![o] = y;
        o++;
        continue;
      }
    }
    if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
    o++;
  }
  return o;
}

/** The correctly rounded double of a plain decimal, or NaN when the fast path does not apply. */
function scanFloat(src: Buffer, s: number, e: number): number {
  let i = s;
  let neg = false;
  if (i < e) {
    const c = src[i]!;
    if (c === MINUS) {
      neg = true;
      i++;
    } else if (c === PLUS) i++;
  }
  let v = 0;
  let digits = 0;
  let frac = 0;
  for (; i < e; i++) {
    const d = src[i]! - 48;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
    digits++;
  }
  if (i < e && src[i] === DOT) {
    i++;
    for (; i < e; i++) {
      const d = src[i]! - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
      digits++;
      frac++;
    }
  }
  if (digits === 0 || digits > 15) return NaN;
  let exp = 0;
  if (i < e && (src[i] === 101 || src[i] === 69)) {
    i++;
    let eneg = false;
    if (i < e && (src[i] === MINUS || src[i] === PLUS)) {
      eneg = src[i] === MINUS;
      i++;
    }
    const es = i;
    for (; i < e && i - es < 4; i++) {
      const d = src[i]! - 48;
      if (d < 0 || d > 9) break;
      exp = exp * 10 + d;
    }
    if (i === es) return NaN;
    if (eneg) exp = -exp;
  }
  if (i !== e) return NaN;
  const e10 = exp - frac;
  if (e10 < -22 || e10 > 22) return NaN;
  const x = e10 < 0 ? v / P10[-e10]! : v * P10[e10]!;
  return neg ? -x : x;
}

// ---- bool: t f 1 0 y n (either case); the rest through boolin ----

/** One-character booleans: 1 = true, 2 = false, 0 = ask boolin. */
const BOOL1 = (() => {
  const t = new Uint8Array(256);
  for (const c of 'tT1yY') t[c.charCodeAt(0)] = 1;
  for (const c of 'fF0nN') t[c.charCodeAt(0)] = 2;
  return t;
})();

function boolLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const bits = col.bytes!;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    const c = e - s === 1 ? BOOL1[src[s]!]! : 0;
    if (c === 1) bits[o >>> 3]! |= 1 << (o & 7);
    else if (c === 2) bits[o >>> 3]! &= ~(1 << (o & 7));
    else if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
    o++;
  }
  return o;
}

// ---- numeric(p,s) as decimal128: [-+]?digits[.digits] with at most s decimals, < 2^53 unscaled ----

function decimalLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const w = col.i32!;
  const scale = col.field.type.scale ?? 0;
  const intMax = (col.field.type.precision ?? 0) - scale; // significant integer digits allowed
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    let i = s;
    let neg = false;
    if (i < e) {
      const c = src[i]!;
      if (c === MINUS) {
        neg = true;
        i++;
      } else if (c === PLUS) i++;
    }
    let v = 0;
    let sig = 0; // integer digits after leading zeros
    const ds = i;
    for (; i < e; i++) {
      const d = src[i]! - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
      if (v !== 0) sig++;
    }
    let digits = i - ds;
    let frac = 0;
    if (i < e && src[i] === DOT) {
      i++;
      const fs = i;
      for (; i < e; i++) {
        const d = src[i]! - 48;
        if (d < 0 || d > 9) break;
        v = v * 10 + d;
      }
      frac = i - fs;
      digits += frac;
    }
    if (i === e && digits > 0 && digits <= 15 && frac <= scale && sig <= intMax && sig + scale <= 15) {
      let x = v * P10[scale - frac]!;
      if (neg) x = -x;
      const hi = Math.floor(x / TWO32);
      const j = o * 4;
      w[j] = (x - hi * TWO32) | 0;
      w[j + 1] = hi | 0;
      const ext = x < 0 ? -1 : 0;
      w[j + 2] = ext;
      w[j + 3] = ext;
    } else if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
    o++;
  }
  return o;
}

// ---- date: YYYY-MM-DD ----

/** Days since 1970-01-01 of YYYY-MM-DD at src[s..s+10), or NaN. */
function scanIsoDate(src: Buffer, s: number): number {
  const y0 = src[s]! - 48;
  const y1 = src[s + 1]! - 48;
  const y2 = src[s + 2]! - 48;
  const y3 = src[s + 3]! - 48;
  const m0 = src[s + 5]! - 48;
  const m1 = src[s + 6]! - 48;
  const d0 = src[s + 8]! - 48;
  const d1 = src[s + 9]! - 48;
  if (
    src[s + 4] !== MINUS || src[s + 7] !== MINUS ||
    (y0 | y1 | y2 | y3 | m0 | m1 | d0 | d1) < 0 || y0 > 9 || y1 > 9 || y2 > 9 || y3 > 9 || m0 > 9 || m1 > 9 || d0 > 9 || d1 > 9
  )
    return NaN;
  const y = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const m = m0 * 10 + m1;
  const d = d0 * 10 + d1;
  if (y < 1 || m < 1 || m > 12 || d < 1 || (d > DAYS_IN_MONTH[m - 1]! && !(m === 2 && d === 29 && isLeap(y)))) return NaN;
  return date2j(y, m, d) - UNIX_EPOCH_JD;
}

function dateLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const vals = col.i32!;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    const days = e - s === 10 ? scanIsoDate(src, s) : NaN;
    if (days === days) vals[o] = days;
    else if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
    o++;
  }
  return o;
}

// ---- timestamp(tz): YYYY-MM-DD[ T]HH:MM:SS[.ffffff] then, for timestamptz, [Z | ±HH[:MM]] ----

function digit2(src: Buffer, i: number): number {
  const a = src[i]! - 48;
  const b = src[i + 1]! - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** µs since 1970 (UTC for timestamptz), or NaN when the fast path does not apply. */
function scanIsoTimestamp(src: Buffer, s: number, e: number, withTz: boolean): number {
  if (e - s < 19) return NaN;
  const days = scanIsoDate(src, s);
  if (days !== days) return NaN;
  const sep = src[s + 10];
  if ((sep !== SPACE && sep !== 84) || src[s + 13] !== 58 || src[s + 16] !== 58) return NaN;
  const h = digit2(src, s + 11);
  const mi = digit2(src, s + 14);
  const sec = digit2(src, s + 17);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return NaN;
  let i = s + 19;
  let us = 0;
  if (i < e && src[i] === DOT) {
    i++;
    const fs = i;
    for (; i < e && i - fs < 6; i++) {
      const d = src[i]! - 48;
      if (d < 0 || d > 9) break;
      us = us * 10 + d;
    }
    const nd = i - fs;
    if (nd === 0) return NaN;
    if (i < e && src[i]! - 48 >= 0 && src[i]! - 48 <= 9) return NaN; // more than 6 digits: rounding, slow path
    us *= P10[6 - nd]!;
  }
  let offset = 0;
  if (i < e) {
    if (!withTz) return NaN;
    const c = src[i]!;
    if (c === 90 && i + 1 === e) {
      // 'Z'
      i++;
    } else if ((c === PLUS || c === MINUS) && (e - i === 3 || (e - i === 6 && src[i + 3] === 58))) {
      const oh = digit2(src, i + 1);
      const om = e - i === 6 ? digit2(src, i + 4) : 0;
      if (oh < 0 || oh > 14 || om < 0 || om > 59) return NaN;
      offset = (oh * 3600 + om * 60) * (c === MINUS ? -1 : 1);
      i = e;
    } else return NaN;
  }
  const secs = days * 86400 + h * 3600 + mi * 60 + sec - offset;
  const total = secs * 1e6 + us;
  return total > -TWO53 && total < TWO53 ? total : NaN;
}

function timestampLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const words = col.i32!;
  const withTz = col.kind === FastPath.Timestamptz;
  // Outside UTC a field without an offset needs the zone's rules: parseText reads it.
  const fast = !withTz || ctx.timeZone === UTC;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    const us = fast ? scanIsoTimestamp(src, s, e, withTz) : NaN;
    if (us === us) putI64(words, o, us);
    else if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
    o++;
  }
  return o;
}

// ---- text, varchar(n), bpchar(n): copy the bytes (pad bpchar), parseText when too long ----
// One loop per kind, so that each stays monomorphic and V8 never deoptimizes one kind's loop
// for a path only another kind takes.

/** Appends src[s, e) to the column's data (a byte loop beats Buffer#copy, which allocates a view, at field sizes). */
function copyBytes(data: Buffer, at: number, src: Buffer, s: number, e: number): number {
  if (e - s < 256) {
    for (let i = s; i < e; i++) data[at++] = src[i]!;
    return at;
  }
  return at + src.copy(data, at, s, e);
}

function textLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const offsets = col.offsets!;
  let data = col.data;
  let dataLen = col.dataLen;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      col.dataLen = dataLen;
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    if (dataLen + (e - s) > data.length) {
      col.dataLen = dataLen;
      data = col.ensureData(e - s);
    }
    dataLen = copyBytes(data, dataLen, src, s, e);
    offsets[++o] = dataLen;
  }
  col.dataLen = dataLen;
  return o;
}

function varcharLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const offsets = col.offsets!;
  const ascii = ctx.ascii;
  const maxChars = col.field.type.length ?? 0;
  let data = col.data;
  let dataLen = col.dataLen;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      col.dataLen = dataLen;
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    if (e - s > maxChars && (ascii || charCount(src, s, e) > maxChars)) {
      // Too long: trailing spaces are cut, anything else is an error (varchar.c).
      col.dataLen = dataLen;
      if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
      data = col.data;
      dataLen = col.dataLen;
      o++;
      continue;
    }
    if (dataLen + (e - s) > data.length) {
      col.dataLen = dataLen;
      data = col.ensureData(e - s);
    }
    dataLen = copyBytes(data, dataLen, src, s, e);
    offsets[++o] = dataLen;
  }
  col.dataLen = dataLen;
  return o;
}

function bpcharLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  const offsets = col.offsets!;
  const ascii = ctx.ascii;
  const maxChars = col.field.type.length ?? 0;
  let data = col.data;
  let dataLen = col.dataLen;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      col.dataLen = dataLen;
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    const s = fStart[k]!;
    const e = fEnd[k]!;
    const chars = ascii ? e - s : charCount(src, s, e);
    if (chars > maxChars) {
      col.dataLen = dataLen;
      if (!slowField(ctx, col, src, s, e, r, p, o)) continue;
      data = col.data;
      dataLen = col.dataLen;
      o++;
      continue;
    }
    const spaces = maxChars - chars;
    if (dataLen + (e - s) + spaces > data.length) {
      col.dataLen = dataLen;
      data = col.ensureData(e - s + spaces);
    }
    dataLen = copyBytes(data, dataLen, src, s, e);
    const padded = dataLen + spaces;
    while (dataLen < padded) data[dataLen++] = SPACE;
    offsets[++o] = dataLen;
  }
  col.dataLen = dataLen;
  return o;
}

/** Characters (code points) of valid UTF-8 bytes: the bytes that are not continuation bytes. */
function charCount(src: Buffer, s: number, e: number): number {
  let chars = 0;
  for (let i = s; i < e; i++) if ((src[i]! & 0xc0) !== 0x80) chars++;
  return chars;
}

// ---- everything else: parseText ----

function genericLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  const tok = ctx.tok;
  const n = tok.n;
  const off = p * tok.cap;
  const fStart = tok.fStart;
  const fEnd = tok.fEnd;
  const fFlags = tok.fFlags;
  const bad = ctx.bad;
  const buf = ctx.buf;
  const qbuf = tok.qbuf;
  let o = base;
  for (let r = 0; r < n; r++) {
    if (bad[r] !== 0 && ctx.skip(r, p)) continue;
    const k = off + r;
    const fl = fFlags[k]!;
    if (fl === FIELD_NULL) {
      nullAt(ctx, col, r, o++);
      continue;
    }
    const src = fl === FIELD_PLAIN ? buf : qbuf;
    if (!slowField(ctx, col, src, fStart[k]!, fEnd[k]!, r, p, o)) continue;
    o++;
  }
  return o;
}
