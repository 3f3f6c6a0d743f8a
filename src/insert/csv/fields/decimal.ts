/**
 * The CSV/text field parser of numeric(p,s) columns stored as decimal128: see ../fields.ts for what every loop does.
 */
import type { ColumnBuffer } from '../columns.js';
import { FIELD_NULL, FIELD_PLAIN } from '../tokenizer.js';
import { type BlockContext, MINUS, PLUS, DOT, TWO32, P10, slowField, nullAt } from './block.js';

// ---- numeric(p,s) as decimal128: [-+]?digits[.digits] with at most s decimals, < 2^53 unscaled ----

export function decimalLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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
