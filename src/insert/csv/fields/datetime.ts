/**
 * The CSV/text field parser of date, timestamp and timestamptz columns: see ../fields.ts for what every loop does.
 */
import { DAYS_IN_MONTH, UNIX_EPOCH_JD, date2j, isLeap, UTC } from '../../../types/index.js';
import { type ColumnBuffer, FastPath } from '../columns.js';
import { FIELD_NULL, FIELD_PLAIN } from '../tokenizer.js';
import { type BlockContext, MINUS, PLUS, DOT, SPACE, TWO53, P10, slowField, nullAt, putI64 } from './block.js';

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

export function dateLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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

export function timestampLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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
