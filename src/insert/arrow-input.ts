/**
 * Arrow IPC input (file or stream format): record batches become paxd batches of the table's
 * columns, matched by name (exactly, then case-insensitively). Table columns missing from the
 * input are NULL (or their default); input columns the table lacks are an error naming them.
 */
import type { FileHandle } from 'node:fs/promises';
import { RecordBatchReader, type RecordBatch } from 'apache-arrow';
import { type Batch, type Column, ColumnBuilder, parseText, type Field, PaxdError, SQLSTATE, undefinedColumn } from '../types/index.js';
import { columnFromArrow } from '../types/arrow.js';

export async function* readArrow(
  source: AsyncIterable<Uint8Array> | NodeJS.ReadableStream | Promise<FileHandle>,
  fields: readonly Field[],
  fileName: string,
  /** The relation named in messages. */
  table = 't',
): AsyncGenerator<Batch> {
  let reader: Awaited<ReturnType<typeof RecordBatchReader.from>>;
  const handle = source instanceof Promise ? await source : null;
  try {
    try {
      reader = await RecordBatchReader.from((handle ?? source) as AsyncIterable<Uint8Array>);
      await reader.open();
    } catch (e) {
      throw badArrow(fileName, e);
    }
    yield* batchesOf(reader, fields, fileName, table);
  } finally {
    await handle?.close();
  }
}

async function* batchesOf(reader: Awaited<ReturnType<typeof RecordBatchReader.from>>, fields: readonly Field[], fileName: string, table: string): AsyncGenerator<Batch> {
  // An empty input opens as a reader without a schema: not an Arrow IPC file or stream.
  if (reader.schema == null) throw badArrow(fileName, new Error('no schema message (empty input?)'));
  let mapping: (number | -1)[] | null = null;
  let rows = 0;
  try {
    for await (const rb of reader as AsyncIterable<RecordBatch>) {
      if (mapping === null) mapping = matchColumnsByName(rb.schema.fields.map((f) => f.name), fields, fileName, table);
      const batch = toBatch(rb, fields, mapping, fileName, rows);
      rows += rb.numRows;
      yield batch;
    }
  } catch (e) {
    if (e instanceof PaxdError) throw e;
    throw badArrow(fileName, e);
  }
}

/**
 * For each table column, the index of the input column of the same name (exact, then
 * case-insensitive), or -1 when the input lacks it. An input column the table does not have
 * is an error in PostgreSQL's words (42703). Shared by the Arrow and Parquet readers.
 */
export function matchColumnsByName(names: readonly string[], fields: readonly Field[], file: string, table: string): number[] {
  const used = new Set<number>();
  const mapping = fields.map((f) => {
    let i = names.indexOf(f.name);
    if (i < 0) i = names.findIndex((n) => n.toLowerCase() === f.name.toLowerCase());
    if (i >= 0) used.add(i);
    return i;
  });
  const extra = names.find((_, i) => !used.has(i));
  if (extra !== undefined) throw undefinedColumn(extra, { relation: table }).at({ file });
  return mapping;
}

/** `first`: rows of the input before this record batch; a bad value is located at `file:ROW:COL`, as Parquet's are. */
function toBatch(rb: RecordBatch, fields: readonly Field[], mapping: readonly number[], fileName: string, first: number): Batch {
  const columns: Column[] = fields.map((f, c) => {
    const i = mapping[c]!;
    if (i < 0) {
      const b = new ColumnBuilder(f.type, rb.numRows);
      const v = f.default === undefined ? null : parseText(f.type, f.default);
      for (let r = 0; r < rb.numRows; r++) b.append(v);
      return b.finish();
    }
    try {
      return columnFromArrow(f.type, rb.getChildAt(i)!.data[0]!);
    } catch (e) {
      if (e instanceof PaxdError) {
        const row = e.row === undefined ? undefined : first + e.row;
        throw e.at(row === undefined ? { file: fileName, columnName: f.name } : { file: fileName, line: row, column: c + 1, columnName: f.name, row });
      }
      throw e;
    }
  });
  return { length: rb.numRows, columns, selection: null };
}

function badArrow(fileName: string, e: unknown): PaxdError {
  const why = e instanceof Error ? e.message : String(e);
  return new PaxdError('invalid_input', SQLSTATE.bad_copy_file_format, `${fileName}: invalid or truncated Arrow IPC input: ${why}`, { file: fileName, cause: e });
}
