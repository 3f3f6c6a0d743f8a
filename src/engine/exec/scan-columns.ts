/**
 * The scan adapter's column loops (./scan.ts): one storage column (src/types column.ts, Arrow
 * layout) to the engine's `Value[]` for the rows of a selection, with one loop per physical
 * layout instead of a per-value dispatch (`getValue`, the slow path, stays for the layouts
 * below do not cover: uuid, interval, bytea).
 *
 *   i16/i32/f32/f64   the number;  i64  the bigint;  bit  the boolean
 *   fixed16 decimal   16 bytes little-endian two's complement (words w0 w1 w2 w3 as int32):
 *                     when w2 and w3 only extend w1's sign and |w1| < 2^21 the value is the
 *                     safe integer w1 · 2^32 + (w0 unsigned), formatted without a bigint;
 *                     else the bigint of all 128 bits
 *   var text          UTF-8 between offsets[r] and offsets[r + 1]; a dictionary zone's entries
 *                     are decoded once and shared by the rows that carry their code
 *
 * A NULL row (validity bit 0) is null in every layout.
 */
import type { Column, Field, Value } from '../../types/index.js';
import { formatDecimal, getValue, isDecimal128, physicalOf } from '../../types/index.js';

const TWO32 = 2 ** 32;
const W1_LIMIT = 1 << 21;

/** The column as Values, or null when its layout is one of getValue's only. */
export function fastColumn(c: Column, f: Field, sel: Uint32Array | null, rows: number): Value[] | null {
  const out = new Array<Value>(rows);
  const valid = c.validity;
  switch (physicalOf(c.type)) {
    case 'i16':
    case 'i32':
    case 'f32':
    case 'f64': {
      const v = c.values as ArrayLike<number>;
      for (let i = 0; i < rows; i++) {
        const r = sel === null ? i : sel[i]!;
        out[i] = valid !== null && (valid[r >>> 3]! & (1 << (r & 7))) === 0 ? null : v[r]!;
      }
      return out;
    }
    case 'i64': {
      const v = c.values as BigInt64Array;
      for (let i = 0; i < rows; i++) {
        const r = sel === null ? i : sel[i]!;
        out[i] = valid !== null && (valid[r >>> 3]! & (1 << (r & 7))) === 0 ? null : v[r]!;
      }
      return out;
    }
    case 'bit': {
      const v = c.values as Uint8Array;
      for (let i = 0; i < rows; i++) {
        const r = sel === null ? i : sel[i]!;
        out[i] = valid !== null && (valid[r >>> 3]! & (1 << (r & 7))) === 0 ? null : (v[r >>> 3]! & (1 << (r & 7))) !== 0;
      }
      return out;
    }
    case 'fixed16':
      return isDecimal128(f.type) && isDecimal128(c.type) ? decimals(c, f.type.scale ?? 0, sel, rows, out) : null;
    case 'var':
      return c.type.id === 'bytea' ? null : texts(c, sel, rows, out);
  }
}

function decimals(c: Column, scale: number, sel: Uint32Array | null, rows: number, out: Value[]): Value[] {
  const b = c.values as Uint8Array;
  const aligned = (b.byteOffset & 3) === 0;
  const w = aligned ? new Int32Array(b.buffer, b.byteOffset, b.byteLength >>> 2) : null;
  const valid = c.validity;
  for (let i = 0; i < rows; i++) {
    const r = sel === null ? i : sel[i]!;
    if (valid !== null && (valid[r >>> 3]! & (1 << (r & 7))) === 0) {
      out[i] = null;
      continue;
    }
    if (w !== null) {
      const w1 = w[4 * r + 1]!;
      const ext = w1 < 0 ? -1 : 0;
      if (w[4 * r + 2] === ext && w[4 * r + 3] === ext && w1 < W1_LIMIT && w1 >= -W1_LIMIT) {
        out[i] = formatDecimal(w1 * TWO32 + (w[4 * r]! >>> 0), scale);
        continue;
      }
    }
    out[i] = formatDecimal(getValue(c, r) as bigint, scale);
  }
  return out;
}

function texts(c: Column, sel: Uint32Array | null, rows: number, out: Value[]): Value[] {
  const valid = c.validity;
  const d = c.dictionary;
  if (d !== undefined) {
    const entries: (string | undefined)[] = new Array<string | undefined>(d.entries.length);
    const codes = d.codes;
    for (let i = 0; i < rows; i++) {
      const r = sel === null ? i : sel[i]!;
      if (valid !== null && (valid[r >>> 3]! & (1 << (r & 7))) === 0) {
        out[i] = null;
        continue;
      }
      const code = codes[r]!;
      out[i] = entries[code] ??= getValue(d.entries, code) as string;
    }
    return out;
  }
  const data = c.data!;
  const offsets = c.offsets!;
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 0; i < rows; i++) {
    const r = sel === null ? i : sel[i]!;
    out[i] = valid !== null && (valid[r >>> 3]! & (1 << (r & 7))) === 0 ? null : buf.toString('utf8', offsets[r]!, offsets[r + 1]!);
  }
  return out;
}
