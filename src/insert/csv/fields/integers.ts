/**
 * The CSV/text field parser of Integer columns (int2, int4, int8): see ../fields.ts for what every loop does.
 */
import type { ColumnBuffer } from '../columns.js';
import { FIELD_NULL, FIELD_PLAIN } from '../tokenizer.js';
import { type BlockContext, MINUS, PLUS, P10, slowField, nullAt, putI64 } from './block.js';

// ---- integers: [-+]?[0-9]+, few enough digits that no overflow is possible ----

export function int2Loop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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

export function int4Loop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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

export function int8Loop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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
