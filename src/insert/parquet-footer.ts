/**
 * Parquet text columns read as bytes, so that paxd validates their UTF-8 as it does for every
 * other input (src/types/utf8.ts: 22021 with PostgreSQL's message, at the row).
 *
 * parquet-wasm checks UTF-8 itself while it turns a BYTE_ARRAY column annotated as a string
 * into Arrow utf8, and a bad value makes it trap ("unreachable") with no row and no reason:
 * the file could only be refused as 22P04. So before the decoder sees the file, its footer is
 * rewritten: the string annotations of top-level BYTE_ARRAY columns (converted_type UTF8,
 * ENUM, JSON; logicalType STRING, ENUM, JSON) are removed, and with them the footer's
 * `ARROW:schema` key, which would otherwise restore utf8. The decoder then returns those
 * columns as Arrow binary, whose layout is utf8's (int32 offsets, data), and the reader relabels
 * them utf8 (`asUtf8`) on the way into paxd's conversion, which validates every value.
 *
 *   file:     PAR1 | column chunks … | footer (thrift FileMetaData) | len u32 LE | PAR1
 *   patched:  PAR1 | column chunks … | patched footer               | len' u32 LE | PAR1
 *
 * Column chunk offsets are absolute and the chunks come before the footer, so they stay
 * valid. Nested schemas (a group among the columns) are left as they are: the decoder checks
 * them, as before. A footer that does not decode is left alone too: the decoder then reports
 * the file as it always did (22P04).
 */
import { type Data, Utf8, makeData } from 'apache-arrow';
import { decodeStruct, encodeStruct, field, removeField, type TList, type TStruct } from '../types/index.js';

/** The last 8 bytes of a Parquet file: footer length (u32 LE) and "PAR1". */
export const TAIL_BYTES = 8;

// parquet.thrift field ids and codes
const FMD_SCHEMA = 2;
const FMD_KEY_VALUE = 5;
const KV_KEY = 1;
const SE_TYPE = 1;
const SE_NUM_CHILDREN = 5;
const SE_CONVERTED = 6;
const SE_NAME = 4;
const SE_LOGICAL = 10;
const BYTE_ARRAY = 6;
const CONVERTED_TEXT = new Set([0 /* UTF8 */, 4 /* ENUM */, 19 /* JSON */]);
const LOGICAL_TEXT = new Set([1 /* STRING */, 4 /* ENUM */, 12 /* JSON */]);

export interface TextPatch {
  /** Where the original footer starts: the patched file is bytes [0, start) and then `tail`. */
  readonly start: number;
  /** The patched footer, its length and the magic. */
  readonly tail: Uint8Array;
  /** The names of the columns now read as binary. */
  readonly textColumns: ReadonlySet<string>;
}

/** The footer's length from a file's last 8 bytes, or null if they are not a Parquet tail. */
export function footerLength(tail: Uint8Array): number | null {
  if (tail.length !== TAIL_BYTES || String.fromCharCode(...tail.subarray(4)) !== 'PAR1') return null;
  return new DataView(tail.buffer, tail.byteOffset, 4).getUint32(0, true);
}

/**
 * The patch for a file whose footer (`footer`, `size` bytes of file in all) is given, or null
 * when there is nothing to patch (no top-level string column, nested schema, undecodable).
 */
export function patchTextColumns(footer: Uint8Array, size: number): TextPatch | null {
  let fmd: TStruct;
  try {
    const d = decodeStruct(footer, 0);
    if (d.end !== footer.length) return null;
    fmd = d.struct;
  } catch {
    return null; // the decoder will say what is wrong with it
  }
  const schema = field(fmd, FMD_SCHEMA) as TList | undefined;
  if (schema === undefined || schema.items.length < 2) return null;
  const textColumns = new Set<string>();
  for (const item of schema.items.slice(1)) {
    const se = item as TStruct;
    if (field(se, SE_NUM_CHILDREN) !== undefined) return null; // a group: nested schema
  }
  for (const item of schema.items.slice(1)) {
    const se = item as TStruct;
    if (field(se, SE_TYPE) !== BYTE_ARRAY) continue;
    const converted = field(se, SE_CONVERTED) as number | undefined;
    const logical = field(se, SE_LOGICAL) as TStruct | undefined;
    const logicalText = logical !== undefined && logical.fields.length === 1 && LOGICAL_TEXT.has(logical.fields[0]!.id);
    if (!(converted !== undefined && CONVERTED_TEXT.has(converted)) && !logicalText) continue;
    if (converted !== undefined) removeField(se, SE_CONVERTED);
    if (logical !== undefined) removeField(se, SE_LOGICAL);
    const name = field(se, SE_NAME);
    if (name instanceof Uint8Array) textColumns.add(new TextDecoder().decode(name));
  }
  if (textColumns.size === 0) return null;
  const kv = field(fmd, FMD_KEY_VALUE) as TList | undefined;
  if (kv !== undefined) {
    kv.items = kv.items.filter((e) => {
      const key = field(e as TStruct, KV_KEY);
      return !(key instanceof Uint8Array && new TextDecoder().decode(key) === 'ARROW:schema');
    });
    if (kv.items.length === 0) removeField(fmd, FMD_KEY_VALUE);
  }
  const body = encodeStruct(fmd);
  const tail = new Uint8Array(body.length + TAIL_BYTES);
  tail.set(body, 0);
  new DataView(tail.buffer).setUint32(body.length, body.length, true);
  tail.set([0x50, 0x41, 0x52, 0x31], body.length + 4);
  return { start: size - TAIL_BYTES - footer.length, tail, textColumns };
}

/** A binary column of a patched file, relabelled utf8 (same buffers) so that paxd's conversion validates it. */
export function asUtf8(d: Data): Data {
  return makeData({ type: new Utf8(), offset: d.offset, length: d.length, nullCount: d.nullCount, nullBitmap: d.nullBitmap, valueOffsets: d.valueOffsets, data: d.values });
}
