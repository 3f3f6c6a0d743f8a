/**
 * The CSV/text field parser of bool columns: see ../fields.ts for what every loop does.
 */
import type { ColumnBuffer } from '../columns.js';
import { FIELD_NULL, FIELD_PLAIN } from '../tokenizer.js';
import { type BlockContext, slowField, nullAt } from './block.js';

// ---- bool: t f 1 0 y n (either case); the rest through boolin ----

/** One-character booleans: 1 = true, 2 = false, 0 = ask boolin. */
const BOOL1 = (() => {
  const t = new Uint8Array(256);
  for (const c of 'tT1yY') t[c.charCodeAt(0)] = 1;
  for (const c of 'fF0nN') t[c.charCodeAt(0)] = 2;
  return t;
})();

export function boolLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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
