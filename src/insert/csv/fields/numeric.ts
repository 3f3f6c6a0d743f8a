/**
 * The CSV/text field parser of numeric without a precision, stored as its canonical text: see
 * ../fields.ts for what every loop does.
 */
import type { ColumnBuffer } from '../columns.js';
import { FIELD_NULL, FIELD_PLAIN } from '../tokenizer.js';
import { type BlockContext, MINUS, DOT, slowField, nullAt } from './block.js';

// ---- numeric: a field already in canonical form is its own text ----
// Canonical is what parseText gives back: `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, never a negative zero.
// Anything else (`+5`, `007`, `.5`, `5.`, `-0.0`, exponents, spaces, NaN, very long digit runs,
// errors) goes through parseText.

const ZERO = 48;
const NINE = 57;
/** Digit runs longer than this take the general path, which checks PostgreSQL's numeric limits. */
const MAX_RUN = 1000;

/** True when src[s, e) is a numeric in canonical form. */
function canonical(src: Buffer, s: number, e: number): boolean {
  let i = s;
  if (i < e && src[i] === MINUS) i++;
  const intStart = i;
  while (i < e && src[i]! >= ZERO && src[i]! <= NINE) i++;
  const intLen = i - intStart;
  if (intLen === 0 || intLen > MAX_RUN || (intLen > 1 && src[intStart] === ZERO)) return false;
  let nonZero = intLen > 1 || src[intStart] !== ZERO;
  if (i < e) {
    if (src[i] !== DOT) return false;
    const fracStart = ++i;
    for (; i < e; i++) {
      const c = src[i]!;
      if (c < ZERO || c > NINE) return false;
      if (c !== ZERO) nonZero = true;
    }
    if (i === fracStart || i - fracStart > MAX_RUN) return false;
  }
  return nonZero || src[s] !== MINUS;
}

export function numericTextLoop(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
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
    if (canonical(src, s, e)) {
      let data = col.data;
      let at = col.dataLen;
      if (at + (e - s) > data.length) data = col.ensureData(e - s);
      for (let i = s; i < e; i++) data[at++] = src[i]!;
      col.dataLen = at;
      offsets[++o] = at;
    } else if (slowField(ctx, col, src, s, e, r, p, o)) o++;
  }
  return o;
}
