/**
 * Schema inference from Parquet and Arrow IPC inputs (./infer.ts, `paxd ingest --create`): the
 * columns of the file's (Arrow) schema, as arrowToPgType maps them. Apart from ./infer.ts because
 * it loads apache-arrow and the Parquet reader, which a CSV or NDJSON ingest never needs: infer.ts
 * imports this file only for these two formats.
 *
 *   await inferArrowSchema('arrow', await openInput('t.arrow'), false)
 *   // [{ name: 'id', type: { id: 'int8' } }, { name: 'at', type: { id: 'timestamptz' } }, …]
 */
import { RecordBatchReader, type DataType, type Schema, Type, type TimeUnit } from 'apache-arrow';
import { type ColumnSpec, PaxdError, SQLSTATE, type PgType } from '../types/index.js';
import { type Input, unreadStdin } from './input.js';
import { ParquetSource } from './parquet-input.js';

/**
 * The columns of a Parquet or Arrow IPC input. The input is spent; standard input gets its bytes
 * back (input.ts unreadStdin) so that the load reads them again.
 */
export async function inferArrowSchema(format: 'parquet' | 'arrow', input: Input, isStdin: boolean): Promise<ColumnSpec[]> {
  const recorded: Uint8Array[] = [];
  if (format === 'parquet') {
    // Parquet from stdin is buffered whole by the reader anyway: read all of it here, give it back.
    const source: Input = isStdin ? { ...input, stream: recording(input.stream, recorded) } : input;
    try {
      const src = await ParquetSource.open(source);
      await src.close();
      return columnsOfArrow(src.schema, input.name);
    } finally {
      if (isStdin) unreadStdin(recorded);
    }
  }
  const source = recording(input.stream, recorded);
  try {
    const reader = await RecordBatchReader.from(source);
    await reader.open();
    if (reader.schema == null) throw new Error('no schema message (empty input?)');
    return columnsOfArrow(reader.schema, input.name);
  } catch (e) {
    if (e instanceof PaxdError) throw e;
    const why = e instanceof Error ? e.message : String(e);
    throw new PaxdError('invalid_input', SQLSTATE.bad_copy_file_format, `${input.name}: invalid or truncated Arrow IPC input: ${why}`, { file: input.name, cause: e });
  } finally {
    await source.return(undefined); // ends the read (and closes the file) where the schema ended
    if (isStdin) unreadStdin(recorded);
    else await input.close();
  }
}

async function* recording(src: AsyncIterable<Uint8Array>, into: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for await (const c of src) {
    into.push(c);
    yield c;
  }
}

function columnsOfArrow(schema: Schema, file: string): ColumnSpec[] {
  return schema.fields.map((f) => {
    const type = arrowToPgType(f.type);
    if (type === null) throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `${file}: column "${f.name}" of type ${String(f.type)} has no paxd type (loading it is not supported)`, { file, columnName: f.name });
    return { name: f.name, type };
  });
}

/**
 * The table type for an Arrow (or Parquet, through its Arrow schema) type; null when none
 * holds it. Unsigned types widen (uint64 → numeric(20,0)); decimals beyond 38 digits become
 * unconstrained numeric; fixed_size_binary(16) is taken for a uuid.
 */
export function arrowToPgType(t: DataType): PgType | null {
  switch (t.typeId) {
    case Type.Int: {
      const { bitWidth, isSigned } = t as unknown as { bitWidth: number; isSigned: boolean };
      if (isSigned) return bitWidth <= 16 ? { id: 'int2' } : bitWidth === 32 ? { id: 'int4' } : { id: 'int8' };
      return bitWidth <= 8 ? { id: 'int2' } : bitWidth === 16 ? { id: 'int4' } : bitWidth === 32 ? { id: 'int8' } : { id: 'numeric', precision: 20, scale: 0 };
    }
    case Type.Float:
      return (t as unknown as { precision: number }).precision === 2 ? { id: 'float8' } : { id: 'float4' };
    case Type.Bool:
      return { id: 'bool' };
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Null:
      return { id: 'text' };
    case Type.Binary:
    case Type.LargeBinary:
      return { id: 'bytea' };
    case Type.FixedSizeBinary:
      return (t as unknown as { byteWidth: number }).byteWidth === 16 ? { id: 'uuid' } : { id: 'bytea' };
    case Type.Decimal: {
      const { precision, scale } = t as unknown as { precision: number; scale: number };
      return precision <= 38 && scale >= 0 && scale <= precision ? { id: 'numeric', precision, scale } : { id: 'numeric' };
    }
    case Type.Date:
      return { id: 'date' };
    case Type.Timestamp: {
      const ts = t as unknown as { unit: TimeUnit; timezone?: string | null };
      return ts.timezone !== null && ts.timezone !== undefined && ts.timezone !== '' ? { id: 'timestamptz' } : { id: 'timestamp' };
    }
    case Type.Dictionary:
      return arrowToPgType((t as unknown as { dictionary: DataType }).dictionary);
    default:
      return null;
  }
}
