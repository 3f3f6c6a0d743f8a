/**
 * Builds one Parquet file out of single-row-group Parquet files, one row group at a time.
 *
 * Why: parquet-wasm 0.8 writes a whole file from one in-memory Table (`writeParquet`), and its
 * streaming writer (`transformParquetStream`) cuts row groups only by a fixed row count and
 * drops write errors (writer_async.rs: `let _ = writer.write(…)`). paxd wants one Parquet row
 * group per PAX row group, of any size, with memory bounded by one group. So each row group
 * is written by `writeParquet` as a small file of its own, whose column-chunk bytes are
 * appended to the output file, and whose footer's row-group entry is kept, with every file
 * offset shifted to where its bytes landed. `finish()` writes the combined footer.
 *
 * A Parquet file (https://parquet.apache.org/docs/file-format/):
 *
 *   offset 0        "PAR1"                     4 bytes magic
 *   offset 4        column chunks              row group 0's chunks, then row group 1's, …
 *                   (page index, bloom filters — dropped here, see below)
 *   offset F        FileMetaData               Thrift compact (./thrift.ts)
 *   offset end-8    footer length F'           u32 LE
 *   offset end-4    "PAR1"
 *
 * FileMetaData: 1 version i32, 2 schema list<SchemaElement>, 3 num_rows i64,
 *   4 row_groups list<RowGroup>, 5 key_value_metadata (ARROW:schema), 6 created_by, 7 column_orders.
 * RowGroup: 1 columns list<ColumnChunk>, 2 total_byte_size, 3 num_rows, 5 file_offset i64,
 *   6 total_compressed_size, 7 ordinal i16.
 * ColumnChunk: 2 file_offset i64, 3 meta_data ColumnMetaData, 4/5 offset index offset/length,
 *   6/7 column index offset/length.
 * ColumnMetaData: 7 total_compressed_size, 9 data_page_offset, 10 index_page_offset,
 *   11 dictionary_page_offset, 12 statistics, 14 bloom_filter_offset (all offsets i64, absolute).
 *
 * The page index (column/offset indexes) of the small files is dropped (ColumnChunk fields
 * 4–7 removed): its page locations would need rewriting too, and the chunk statistics that
 * readers prune with live in ColumnMetaData.statistics, which is kept.
 */
import { T, type TList, type TStruct, type TValue, decodeStruct, encodeStruct, field, removeField, setField } from '../types/index.js';

const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]); // "PAR1"

// Field ids (parquet.thrift)
const FMD_NUM_ROWS = 3;
const FMD_ROW_GROUPS = 4;
const FMD_SCHEMA = 2;
const RG_COLUMNS = 1;
const RG_NUM_ROWS = 3;
const RG_FILE_OFFSET = 5;
const RG_ORDINAL = 7;
const CC_FILE_OFFSET = 2;
const CC_META = 3;
const CC_PAGE_INDEX = [4, 5, 6, 7];
const CMD_TOTAL_COMPRESSED = 7;
const CMD_DATA_PAGE = 9;
const CMD_INDEX_PAGE = 10;
const CMD_DICT_PAGE = 11;
const CMD_BLOOM = 14;
const SE_NAME = 4;
const SE_LOGICAL_TYPE = 10;
const LT_UUID = 14;

/** A malformed small file: parquet-wasm produced something this stitcher does not understand. */
export class StitchError extends Error {}

/** One row group taken out of a single-row-group Parquet file. */
export interface RowGroupPart {
  /** The column-chunk bytes, to append to the output as they are. */
  readonly bytes: Uint8Array;
  readonly rows: bigint;
  /** Footer of the small file (schema, key-value metadata) with the row group entry. */
  readonly footer: TStruct;
  readonly rowGroup: TStruct;
}

/** Splits a single-row-group Parquet file into its chunk bytes and its footer. */
export function splitSingleGroup(file: Uint8Array): RowGroupPart {
  const n = file.length;
  if (n < 12 || !hasMagic(file, 0) || !hasMagic(file, n - 4)) throw new StitchError(`not a Parquet file (${n} bytes)`);
  const len = new DataView(file.buffer, file.byteOffset + n - 8, 4).getUint32(0, true);
  const start = n - 8 - len;
  if (start < 4) throw new StitchError(`footer length ${len} exceeds file size ${n}`);
  const { struct: footer, end } = decodeStruct(file, start);
  if (end !== n - 8) throw new StitchError(`footer ends at ${end}, expected ${n - 8}`);
  const groups = field(footer, FMD_ROW_GROUPS) as TList | undefined;
  if (groups === undefined || groups.items.length !== 1) throw new StitchError(`expected 1 row group, found ${groups?.items.length ?? 0}`);
  const rowGroup = groups.items[0] as TStruct;
  // The chunks lie contiguously from offset 4; they end where the last chunk ends.
  let first = Infinity;
  let last = 4;
  for (const cc of (field(rowGroup, RG_COLUMNS) as TList).items) {
    const md = field(cc as TStruct, CC_META) as TStruct;
    const dict = field(md, CMD_DICT_PAGE) as bigint | undefined;
    const data = field(md, CMD_DATA_PAGE) as bigint;
    const s = Number(dict !== undefined && dict < data ? dict : data);
    first = Math.min(first, s);
    last = Math.max(last, s + Number(field(md, CMD_TOTAL_COMPRESSED) as bigint));
  }
  if (first !== 4 || last > start) throw new StitchError(`column chunks span [${first}, ${last}), expected to start at 4 and end before the footer at ${start}`);
  return { bytes: file.subarray(4, last), rows: field(rowGroup, RG_NUM_ROWS) as bigint, footer, rowGroup };
}

/**
 * Accumulates row groups for one output file. The caller writes `head()` first, then each
 * part's bytes as it is added (in order), then `finish()`.
 */
export class ParquetStitcher {
  private pos = 4;
  private rows = 0n;
  private readonly groups: TStruct[] = [];
  private template: TStruct | null = null;

  constructor(private readonly uuidColumns: ReadonlySet<string> = new Set()) {}

  head(): Uint8Array {
    return MAGIC;
  }

  get rowGroups(): number {
    return this.groups.length;
  }

  /** Records `part`, whose bytes the caller appends at the current end of the output. */
  add(part: RowGroupPart): void {
    const delta = BigInt(this.pos - 4);
    const rg = part.rowGroup;
    const columns = field(rg, RG_COLUMNS) as TList;
    for (const item of columns.items) {
      const cc = item as TStruct;
      const md = field(cc, CC_META) as TStruct;
      for (const id of [CMD_DATA_PAGE, CMD_INDEX_PAGE, CMD_DICT_PAGE, CMD_BLOOM]) shift(md, id, delta);
      if (field(md, CMD_BLOOM) !== undefined) {
        removeField(md, CMD_BLOOM); // its bytes are not copied
        removeField(md, 15);
      }
      shiftNonZero(cc, CC_FILE_OFFSET, delta);
      for (const id of CC_PAGE_INDEX) removeField(cc, id);
    }
    shift(rg, RG_FILE_OFFSET, delta);
    setField(rg, RG_ORDINAL, T.I16, this.groups.length);
    this.groups.push(rg);
    this.rows += part.rows;
    this.pos += part.bytes.length;
    this.template ??= part.footer;
  }

  /** The footer, its length and the closing magic; null when no row group was added. */
  finish(): Uint8Array | null {
    if (this.template === null) return null;
    const fmd = this.template;
    setField(fmd, FMD_NUM_ROWS, T.I64, this.rows);
    setField(fmd, FMD_ROW_GROUPS, T.LIST, { kind: T.LIST, elemType: T.STRUCT, items: this.groups });
    if (this.uuidColumns.size > 0) markUuid(fmd, this.uuidColumns);
    const meta = encodeStruct(fmd);
    const out = new Uint8Array(meta.length + 8);
    out.set(meta, 0);
    new DataView(out.buffer).setUint32(meta.length, meta.length, true);
    out.set(MAGIC, meta.length + 4);
    return out;
  }
}

/**
 * Annotates the FIXED_LEN_BYTE_ARRAY(16) leaves of uuid columns with Parquet's UUID logical
 * type, so that DuckDB, Spark and Trino read them as UUIDs; Arrow readers still see
 * fixed_size_binary(16) (the stored ARROW:schema says so).
 */
function markUuid(fmd: TStruct, names: ReadonlySet<string>): void {
  const schema = field(fmd, FMD_SCHEMA) as TList;
  const dec = new TextDecoder();
  for (const el of schema.items.slice(1)) {
    const s = el as TStruct;
    const name = field(s, SE_NAME) as Uint8Array | undefined;
    if (name !== undefined && names.has(dec.decode(name)) && field(s, SE_LOGICAL_TYPE) === undefined) {
      setField(s, SE_LOGICAL_TYPE, T.STRUCT, { fields: [{ id: LT_UUID, type: T.STRUCT, value: { fields: [] } }] });
    }
  }
}

function shift(s: TStruct, id: number, delta: bigint): void {
  const v: TValue | undefined = field(s, id);
  if (typeof v === 'bigint') setField(s, id, T.I64, v + delta);
}

/** ColumnChunk.file_offset is deprecated; parquet-rs writes 0 there, which must stay 0. */
function shiftNonZero(s: TStruct, id: number, delta: bigint): void {
  const v = field(s, id);
  if (typeof v === 'bigint' && v !== 0n) setField(s, id, T.I64, v + delta);
}

function hasMagic(b: Uint8Array, at: number): boolean {
  return b[at] === 0x50 && b[at + 1] === 0x41 && b[at + 2] === 0x52 && b[at + 3] === 0x31;
}
