/**
 * One writer per backend message; each returns the message's bytes, ready for socket.write:
 *
 *   offset size
 *   0      1    code ('Z', 'T', …)
 *   1      4    int32 length: the body plus these 4 bytes, not the code
 *   5      n    body, drawn above each writer
 *
 *   readyForQuery(TX_STATUS.idle)   // <5a 00 00 00 05 49>
 */
import { ACCEPT_SSL, AUTH, BACKEND, ERROR_FIELD, FORMAT, REFUSE_ENCRYPTION, type TxStatus } from './constants.js';
import { TYPE_SIZE, typeOid, typmodOf } from './oids.js';
import type { PgType } from '../../types/index.js';

/** A message of `bodySize` bytes with its header written; the caller fills from offset 5. */
function message(code: number, bodySize: number): Buffer {
  const b = Buffer.allocUnsafe(5 + bodySize);
  b[0] = code;
  b.writeInt32BE(4 + bodySize, 1);
  return b;
}

function cstringSize(s: string): number {
  return Buffer.byteLength(s, 'utf8') + 1;
}

function writeCString(b: Buffer, s: string, off: number): number {
  off += b.write(s, off, 'utf8');
  b[off] = 0;
  return off + 1;
}

/** The answer to SSLRequest/GSSENCRequest when encryption is not offered: one byte 'N'. */
export function refuseEncryption(): Buffer {
  return Buffer.from([REFUSE_ENCRYPTION]);
}

/** AuthenticationOk: int32 0. */
export function authenticationOk(): Buffer {
  const b = message(BACKEND.authentication, 4);
  b.writeInt32BE(AUTH.ok, 5);
  return b;
}

/** AuthenticationMD5Password: int32 5, 4 bytes of salt. */
export function authenticationMD5Password(salt: Buffer): Buffer {
  const b = message(BACKEND.authentication, 8);
  b.writeInt32BE(AUTH.md5Password, 5);
  salt.copy(b, 9, 0, 4);
  return b;
}

/** AuthenticationSASL: int32 10, mechanism names\0 each, then \0. */
export function authenticationSASL(mechanisms: readonly string[]): Buffer {
  let size = 5;
  for (const m of mechanisms) size += cstringSize(m);
  const b = message(BACKEND.authentication, size);
  let off = b.writeInt32BE(AUTH.sasl, 5);
  for (const m of mechanisms) off = writeCString(b, m, off);
  b[off] = 0;
  return b;
}

/** AuthenticationSASLContinue (int32 11) / AuthenticationSASLFinal (int32 12): the mechanism's bytes. */
export function authenticationSASLData(kind: 'continue' | 'final', data: Buffer): Buffer {
  const b = message(BACKEND.authentication, 4 + data.byteLength);
  b.writeInt32BE(kind === 'continue' ? AUTH.saslContinue : AUTH.saslFinal, 5);
  data.copy(b, 9);
  return b;
}

/** The answer to SSLRequest when TLS is configured: one byte 'S', then the TLS handshake. */
export function acceptSsl(): Buffer {
  return Buffer.from([ACCEPT_SSL]);
}

/** ParameterStatus: `name\0 value\0`. */
export function parameterStatus(name: string, value: string): Buffer {
  const b = message(BACKEND.parameterStatus, cstringSize(name) + cstringSize(value));
  writeCString(b, value, writeCString(b, name, 5));
  return b;
}

/** BackendKeyData: int32 process id, int32 secret key. */
export function backendKeyData(processId: number, secretKey: number): Buffer {
  const b = message(BACKEND.backendKeyData, 8);
  b.writeInt32BE(processId, 5);
  b.writeInt32BE(secretKey, 9);
  return b;
}

/** NegotiateProtocolVersion: int32 newest minor supported, int32 n, option name\0 × n. */
export function negotiateProtocolVersion(minor: number, unrecognized: readonly string[]): Buffer {
  let size = 8;
  for (const o of unrecognized) size += cstringSize(o);
  const b = message(BACKEND.negotiateProtocolVersion, size);
  let off = b.writeInt32BE(minor, 5);
  off = b.writeInt32BE(unrecognized.length, off);
  for (const o of unrecognized) off = writeCString(b, o, off);
  return b;
}

/** ReadyForQuery: one status byte. */
export function readyForQuery(status: TxStatus): Buffer {
  const b = message(BACKEND.readyForQuery, 1);
  b[5] = status;
  return b;
}

export interface FieldDescription {
  readonly name: string;
  readonly type: PgType;
  /** The type with its typmod when `type` (the engine's) lost it: numeric(12,2) sends 786438. */
  readonly declared?: PgType;
  /** 0 text (the default), 1 binary. */
  readonly format?: number;
  /** The table column it reads (pg_class oid, attnum), else 0 and 0. */
  readonly origin?: { readonly table: number; readonly column: number };
}

/**
 *   int16 n, then per field: name\0, int32 table oid (0 if none), int16 column number (0 if none),
 *   int32 type oid, int16 typlen, int32 typmod, int16 format
 */
export function rowDescription(fields: readonly FieldDescription[]): Buffer {
  let size = 2;
  for (const f of fields) size += cstringSize(f.name) + 18;
  const b = message(BACKEND.rowDescription, size);
  let off = b.writeInt16BE(fields.length, 5);
  for (const f of fields) {
    off = writeCString(b, f.name, off);
    off = b.writeUInt32BE(f.origin?.table ?? 0, off);
    off = b.writeInt16BE(f.origin?.column ?? 0, off);
    off = b.writeInt32BE(typeOid(f.type), off);
    off = b.writeInt16BE(TYPE_SIZE[f.type.id], off);
    off = b.writeInt32BE(typmodOf(f.declared ?? f.type), off);
    off = b.writeInt16BE(f.format ?? FORMAT.text, off);
  }
  return b;
}

/**
 * DataRow: int16 n, then per value int32 length (-1 = NULL) and its bytes. A string is a
 * text-format value (written as UTF-8), bytes a binary-format one.
 */
export function dataRow(values: readonly (string | Uint8Array | null)[]): Buffer {
  let size = 2;
  for (const v of values) size += 4 + (v === null ? 0 : typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.byteLength);
  const b = message(BACKEND.dataRow, size);
  let off = b.writeInt16BE(values.length, 5);
  for (const v of values) {
    if (v === null) {
      off = b.writeInt32BE(-1, off);
    } else if (typeof v === 'string') {
      const n = b.write(v, off + 4, 'utf8');
      b.writeInt32BE(n, off);
      off += 4 + n;
    } else {
      off = b.writeInt32BE(v.byteLength, off);
      b.set(v, off);
      off += v.byteLength;
    }
  }
  return b;
}

/** CommandComplete: `tag\0` ('SELECT 3', 'SET', 'BEGIN'). */
export function commandComplete(tag: string): Buffer {
  const b = message(BACKEND.commandComplete, cstringSize(tag));
  writeCString(b, tag, 5);
  return b;
}

/** EmptyQueryResponse: no body. */
export function emptyQueryResponse(): Buffer {
  return message(BACKEND.emptyQueryResponse, 0);
}

/** ParseComplete, BindComplete, CloseComplete, NoData, PortalSuspended: no body. */
export function parseComplete(): Buffer {
  return message(BACKEND.parseComplete, 0);
}
export function bindComplete(): Buffer {
  return message(BACKEND.bindComplete, 0);
}
export function closeComplete(): Buffer {
  return message(BACKEND.closeComplete, 0);
}
export function noData(): Buffer {
  return message(BACKEND.noData, 0);
}
export function portalSuspended(): Buffer {
  return message(BACKEND.portalSuspended, 0);
}

/** ParameterDescription: int16 n, int32 type oid × n. */
export function parameterDescription(oids: readonly number[]): Buffer {
  const b = message(BACKEND.parameterDescription, 2 + 4 * oids.length);
  let off = b.writeInt16BE(oids.length, 5);
  for (const oid of oids) off = b.writeUInt32BE(oid >>> 0, off);
  return b;
}

export type Severity = 'ERROR' | 'FATAL' | 'PANIC' | 'WARNING' | 'NOTICE' | 'DEBUG' | 'INFO' | 'LOG';

export interface ErrorFields {
  readonly severity: Severity;
  /** SQLSTATE, five characters. */
  readonly code: string;
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
  /** 1-based character position in the query string. */
  readonly position?: number;
  /** CONTEXT: where the error happened (COPY's line and column). */
  readonly where?: string;
}

/** ErrorResponse: (field type byte, value\0)* \0. */
export function errorResponse(e: ErrorFields): Buffer {
  return noticeOrError(BACKEND.errorResponse, e);
}

/** NoticeResponse: the same fields as ErrorResponse. */
export function noticeResponse(e: ErrorFields): Buffer {
  return noticeOrError(BACKEND.noticeResponse, e);
}

function noticeOrError(code: number, e: ErrorFields): Buffer {
  const fields: [number, string][] = [
    [ERROR_FIELD.severity, e.severity],
    [ERROR_FIELD.severityRaw, e.severity],
    [ERROR_FIELD.code, e.code],
    [ERROR_FIELD.message, e.message],
  ];
  if (e.detail !== undefined) fields.push([ERROR_FIELD.detail, e.detail]);
  if (e.hint !== undefined) fields.push([ERROR_FIELD.hint, e.hint]);
  if (e.position !== undefined) fields.push([ERROR_FIELD.position, String(e.position)]);
  if (e.where !== undefined) fields.push([ERROR_FIELD.where, e.where]);
  let size = 1;
  for (const [, v] of fields) size += 1 + cstringSize(v);
  const b = message(code, size);
  let off = 5;
  for (const [t, v] of fields) {
    b[off++] = t;
    off = writeCString(b, v, off);
  }
  b[off] = 0;
  return b;
}

/** CopyInResponse / CopyOutResponse: int8 overall format, int16 n, int16 format × n (all the same). */
export function copyResponse(kind: 'in' | 'out', columns: number, format: number = FORMAT.text): Buffer {
  const b = message(kind === 'in' ? BACKEND.copyInResponse : BACKEND.copyOutResponse, 3 + 2 * columns);
  b[5] = format;
  let off = b.writeInt16BE(columns, 6);
  for (let i = 0; i < columns; i++) off = b.writeInt16BE(format, off);
  return b;
}

/** CopyData: the bytes as they are (a string as UTF-8). */
export function copyData(data: string | Uint8Array): Buffer {
  const n = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.byteLength;
  const b = message(BACKEND.copyData, n);
  if (typeof data === 'string') b.write(data, 5, 'utf8');
  else b.set(data, 5);
  return b;
}

/** CopyDone: no body. */
export function copyDone(): Buffer {
  return message(BACKEND.copyDone, 0);
}
