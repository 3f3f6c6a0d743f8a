/**
 * The CSV/text field parser of text, varchar(n) and bpchar(n) columns: see ../fields.ts for what every loop does.
 */
import type { ColumnBuffer } from '../columns.js';
import { FIELD_NULL, FIELD_PLAIN } from '../tokenizer.js';
import { type BlockContext, SPACE, slowField, nullAt } from './block.js';

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

export function textLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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

export function varcharLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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

export function bpcharLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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
