/**
 * Columns and batches in Arrow's memory layout. A Column is a plain record of typed arrays so
 * that hot loops index them directly; `toArrow` in ./arrow.ts wraps one as an apache-arrow
 * Data without copying.
 *
 * Layout per physical type (see ./type.ts):
 *   validity  Uint8Array | null   LSB-first bitmap, bit set = value present; null = no NULLs
 *   values    typed array          fixed-width values (bit-packed for bool, 16 bytes for fixed16)
 *   offsets   Int32Array           var-width only: length+1 entries into `data` (need not start at 0)
 *   data      Uint8Array           var-width only: the bytes
 *
 * A NULL slot's value bytes are unspecified (zero when paxd writes them).
 */
import type { PgType, Physical } from './type.js';
import { physicalOf } from './kind.js';

export type Values = Int16Array | Int32Array | BigInt64Array | Float32Array | Float64Array | Uint8Array;

export interface Column {
  readonly type: PgType;
  readonly length: number;
  readonly nullCount: number;
  readonly validity: Uint8Array | null;
  readonly values: Values;
  readonly offsets: Int32Array | null;
  readonly data: Uint8Array | null;
  /**
   * Var-width columns decoded from a dictionary zone also carry it: per row a code into
   * `entries` (0 for NULL rows). offsets/data stay complete, so a consumer may ignore it; it is
   * there so that filters and GROUP BY can compare and hash codes (issue #22).
   */
  readonly dictionary?: DictionaryVector;
}

/** The distinct values of a zone (`entries`, no NULLs) and each row's code into them. */
export interface DictionaryVector {
  readonly codes: Uint16Array;
  readonly entries: Column;
}

/**
 * A batch: equal-length columns plus an optional selection vector. Rows not in `selection`
 * (when present) are not part of the batch — deleted rows and filtered rows leave this way,
 * never through validity.
 */
export interface Batch {
  readonly length: number;
  readonly columns: readonly Column[];
  readonly selection: Uint32Array | null;
}

/** A scalar value as paxd passes it around outside hot loops. */
export type Value = null | number | bigint | boolean | string | Uint8Array;

export function isValid(c: Column, i: number): boolean {
  return c.validity === null || (c.validity[i >>> 3]! & (1 << (i & 7))) !== 0;
}

/** Count of set bits in the first `n` bits of `bits`. */
export function popcount(bits: Uint8Array, n: number): number {
  let count = 0;
  const full = n >>> 3;
  for (let i = 0; i < full; i++) count += POP8[bits[i]!]!;
  const rest = n & 7;
  if (rest) count += POP8[bits[full]! & ((1 << rest) - 1)]!;
  return count;
}

const POP8 = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) t[i] = (i & 1) + t[i >>> 1]!;
  return t;
})();

/**
 * A zero-copy slice of rows [start, start+len). `start` must be a multiple of 8 so that
 * bitmaps stay byte-aligned (batches are cut at multiples of 1,024 rows).
 */
export function sliceColumn(c: Column, start: number, len: number): Column {
  if ((start & 7) !== 0) throw new Error(`sliceColumn: start ${start} is not a multiple of 8`);
  if (start === 0 && len === c.length) return c;
  const validity = c.validity === null ? null : c.validity.subarray(start >>> 3, (start + len + 7) >>> 3);
  const nullCount = validity === null ? 0 : len - popcount(validity, len);
  const p = physicalOf(c.type);
  let values: Values;
  let offsets: Int32Array | null = null;
  switch (p) {
    case 'bit':
      values = (c.values as Uint8Array).subarray(start >>> 3, (start + len + 7) >>> 3);
      break;
    case 'fixed16':
      values = (c.values as Uint8Array).subarray(start * 16, (start + len) * 16);
      break;
    case 'var':
      values = c.values;
      offsets = c.offsets!.subarray(start, start + len + 1);
      break;
    default:
      values = c.values.subarray(start, start + len) as Values;
  }
  if (c.dictionary === undefined) return { type: c.type, length: len, nullCount, validity, values, offsets, data: c.data };
  const dictionary = { codes: c.dictionary.codes.subarray(start, start + len), entries: c.dictionary.entries };
  return { type: c.type, length: len, nullCount, validity, values, offsets, data: c.data, dictionary };
}

export function sliceBatch(b: Batch, start: number, len: number): Batch {
  return { length: len, columns: b.columns.map((c) => sliceColumn(c, start, len)), selection: null };
}

/** Bytes a column occupies in memory (its share of the buffers). */
export function columnBytes(c: Column): number {
  let n = c.validity === null ? 0 : c.validity.byteLength;
  const p: Physical = physicalOf(c.type);
  if (p === 'var') n += (c.length + 1) * 4 + (c.offsets![c.length]! - c.offsets![0]!);
  else n += c.values.byteLength;
  return n;
}
