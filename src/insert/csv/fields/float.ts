/**
 * The CSV/text field parser of float4 and float8 columns: see ../fields.ts for what every loop does.
 */
import type { ColumnBuffer } from '../columns.js';
import { FIELD_NULL, FIELD_PLAIN } from '../tokenizer.js';
import { type BlockContext, MINUS, PLUS, DOT, P10, slowField, nullAt } from './block.js';

// ---- floats: [-+]?digits[.digits][(e|E)[-+]digits], exact by Clinger's fast path ----

export function floatLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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
