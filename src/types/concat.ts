/**
 * Copies row ranges of several columns of one type into one new contiguous column. Ranges
 * may start at any row (bitmaps are shifted bit by bit only where a range is not
 * byte-aligned). Used by sinks to assemble a row group from the batches written to them.
 */
import { type Column, type Values, popcount } from './column.js';
import { type PgType, byteWidth } from './type.js';
import { physicalOf } from './kind.js';

export interface ColumnRange {
  readonly column: Column;
  readonly start: number;
  readonly length: number;
}

export function concatRanges(type: PgType, ranges: readonly ColumnRange[]): Column {
  const steps = concatSteps(type, ranges);
  for (;;) {
    const s = steps.next();
    if (s.done === true) return s.value;
  }
}

/**
 * concatRanges that gives the event loop a turn (setImmediate) each time it has copied about
 * `everyBytes` since the last one: a sink's row group of a text column is tens of MB of copying,
 * which on the daemon's event loop kept every other session waiting (issue #18).
 */
export async function concatRangesYielding(type: PgType, ranges: readonly ColumnRange[], everyBytes: number): Promise<Column> {
  const steps = concatSteps(type, ranges);
  let since = 0;
  for (;;) {
    const s = steps.next();
    if (s.done === true) return s.value;
    since += s.value;
    if (since >= everyBytes) {
      since = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

/** The copy of concatRanges, range by range: yields the bytes each range copied. */
function* concatSteps(type: PgType, ranges: readonly ColumnRange[]): Generator<number, Column> {
  let n = 0;
  let anyNulls = false;
  let dataBytes = 0;
  const phys = physicalOf(type);
  for (const r of ranges) {
    n += r.length;
    if (r.column.validity !== null) anyNulls = true;
    if (phys === 'var') dataBytes += r.column.offsets![r.start + r.length]! - r.column.offsets![r.start]!;
  }
  const validity = anyNulls ? new Uint8Array((n + 7) >>> 3) : null;
  let nullCount = 0;
  let at = 0;
  if (validity !== null) {
    for (const r of ranges) {
      if (r.column.validity === null) setBits(validity, at, r.length);
      else copyBits(validity, at, r.column.validity, r.start, r.length);
      at += r.length;
    }
    nullCount = n - popcount(validity, n);
  }

  let values: Values;
  let offsets: Int32Array | null = null;
  let data: Uint8Array | null = null;
  at = 0;
  switch (phys) {
    case 'bit': {
      const out = new Uint8Array((n + 7) >>> 3);
      for (const r of ranges) {
        copyBits(out, at, r.column.values as Uint8Array, r.start, r.length);
        at += r.length;
      }
      values = out;
      break;
    }
    case 'var': {
      offsets = new Int32Array(n + 1);
      data = new Uint8Array(dataBytes);
      let pos = 0;
      for (const r of ranges) {
        const src = r.column.offsets!;
        const base = src[r.start]!;
        const end = src[r.start + r.length]!;
        data.set(r.column.data!.subarray(base, end), pos);
        const shift = pos - base;
        for (let i = 1; i <= r.length; i++) offsets[at + i] = src[r.start + i]! + shift;
        pos += end - base;
        at += r.length;
        yield end - base + 4 * r.length;
      }
      values = data;
      break;
    }
    default: {
      const w = byteWidth(phys);
      const out = new Uint8Array(n * w);
      for (const r of ranges) {
        const v = r.column.values;
        out.set(new Uint8Array(v.buffer, v.byteOffset + r.start * w, r.length * w), at * w);
        at += r.length;
        yield r.length * w;
      }
      values = typedView(phys, out);
    }
  }
  return { type, length: n, nullCount, validity, values, offsets, data };
}

function typedView(phys: ReturnType<typeof physicalOf>, b: Uint8Array): Values {
  switch (phys) {
    case 'i16':
      return new Int16Array(b.buffer, b.byteOffset, b.byteLength / 2);
    case 'i32':
      return new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    case 'i64':
      return new BigInt64Array(b.buffer, b.byteOffset, b.byteLength / 8);
    case 'f32':
      return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    case 'f64':
      return new Float64Array(b.buffer, b.byteOffset, b.byteLength / 8);
    default:
      return b;
  }
}

/** Sets bits [at, at+len) of dst. */
function setBits(dst: Uint8Array, at: number, len: number): void {
  let i = at;
  const end = at + len;
  while (i < end && (i & 7) !== 0) {
    dst[i >>> 3]! |= 1 << (i & 7);
    i++;
  }
  while (i + 8 <= end) {
    dst[i >>> 3] = 0xff;
    i += 8;
  }
  while (i < end) {
    dst[i >>> 3]! |= 1 << (i & 7);
    i++;
  }
}

/** Copies bits [from, from+len) of src to [at, at+len) of dst (dst bits there are zero). */
function copyBits(dst: Uint8Array, at: number, src: Uint8Array, from: number, len: number): void {
  if ((at & 7) === 0 && (from & 7) === 0) {
    const full = len >>> 3;
    dst.set(src.subarray(from >>> 3, (from >>> 3) + full), at >>> 3);
    for (let i = full * 8; i < len; i++) {
      const s = from + i;
      if (src[s >>> 3]! & (1 << (s & 7))) dst[(at + i) >>> 3]! |= 1 << ((at + i) & 7);
    }
    return;
  }
  for (let i = 0; i < len; i++) {
    const s = from + i;
    if (src[s >>> 3]! & (1 << (s & 7))) {
      const d = at + i;
      dst[d >>> 3]! |= 1 << (d & 7);
    }
  }
}
