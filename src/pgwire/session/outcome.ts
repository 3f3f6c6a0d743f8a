/**
 * What running one statement produced, before it is written in either protocol, and how its
 * values and errors become message fields.
 */
import type { ResultField } from '../../engine/index.js';
import { formatText, isPaxdError, SQLSTATE, type TimeZone, type Value } from '../../types/index.js';
import { FORMAT } from '../codec/constants.js';
import type * as be from '../codec/backend.js';
import { encodeBinary } from '../codec/binary.js';
import { CopyError } from './copy.js';

export interface Outcome {
  /** Null when the statement returns no rows (NoData). */
  readonly fields: readonly ResultField[] | null;
  readonly rows: readonly (readonly Value[])[];
  readonly tag: string;
  /** NoticeResponse messages, sent before CommandComplete. */
  readonly messages: readonly Buffer[];
  /** COPY … TO STDOUT: lines sent as CopyData instead of DataRows. */
  readonly copyOut?: { readonly columns: number; readonly binary: boolean; readonly lines: readonly (string | Buffer)[] };
  /** FETCH from a BINARY cursor: every column in binary format, whatever the protocol asked. */
  readonly binary?: boolean;
  /**
   * FETCH from a streaming cursor (simple protocol): instead of `rows`, DataRows in text
   * format handed to `emit` chunk by chunk; returns the row count, which follows `tag`.
   */
  readonly stream?: (emit: (chunk: Buffer) => Promise<void>) => Promise<number>;
  /** The RowDescription of `fields`, when already built. */
  readonly description?: Buffer;
}

export const NO_ROWS: Omit<Outcome, 'tag'> = { fields: null, rows: [], messages: [] };

/** The format of column or parameter `i` from a format list: none (text), one for all, or one each. */
export function formatOf(formats: readonly number[], i: number): number {
  return formats.length === 0 ? FORMAT.text : formats.length === 1 ? formats[0]! : (formats[i] ?? FORMAT.text);
}

/** One row's values for DataRow: text (as PostgreSQL's output functions print) or binary. */
export function encodeRow(fields: readonly ResultField[], row: readonly Value[], formats: readonly number[], zone: TimeZone): (string | Uint8Array | null)[] {
  const out: (string | Uint8Array | null)[] = new Array(row.length);
  for (let i = 0; i < row.length; i++) {
    const v = row[i]!;
    const type = fields[i]!.type;
    if (v === null) out[i] = null;
    else if (formats[i] === FORMAT.binary) out[i] = encodeBinary(type, v);
    // The engine keeps numeric results as exact text.
    else out[i] = type.id === 'numeric' && typeof v === 'string' ? v : formatText(type, v, zone);
  }
  return out;
}

/** The fields of an ErrorResponse for `e`. */
export function errorFields(e: unknown): Omit<be.ErrorFields, 'severity'> {
  if (isPaxdError(e)) {
    const position = (e as { position?: number }).position;
    return {
      code: e.code,
      message: e.message,
      ...(e.detail !== undefined ? { detail: e.detail } : {}),
      ...(e.hint !== undefined ? { hint: e.hint } : {}),
      ...(position !== undefined ? { position } : {}),
      ...(e instanceof CopyError ? { where: e.where } : {}),
    };
  }
  return { code: SQLSTATE.internal_error, message: `internal error: ${e instanceof Error ? e.message : String(e)}` };
}
