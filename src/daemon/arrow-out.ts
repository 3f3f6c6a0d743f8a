/**
 * A query result as an Arrow IPC stream (`POST /v1/sql`): one record batch of the result's
 * columns in paxd's Arrow mapping (DESIGN.md "Type mapping"), so apache-arrow, pyarrow, Polars
 * or DuckDB read it with its PostgreSQL types intact.
 */
import { Field as ArrowField, RecordBatch, Schema, Struct, Table as ArrowTable, makeData, tableToIPC } from 'apache-arrow';
import { columnOf } from '../types/index.js';
import { arrowType, columnToArrow } from '../types/arrow.js';
import type { QueryResult } from '../engine/index.js';

export function resultToArrowIpc(r: QueryResult): Uint8Array {
  const schema = new Schema(r.fields.map((f) => new ArrowField(f.name, arrowType(f.type), true)));
  const columns = r.fields.map((f, c) => columnOf(f.type, r.rows.map((row) => row[c]!)));
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: r.rows.length, nullCount: 0, children: columns.map(columnToArrow) }));
  return tableToIPC(new ArrowTable(schema, [batch]), 'stream');
}
