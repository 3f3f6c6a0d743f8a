/**
 * Errors of the wire protocol layer, one constructor per situation. Each is a PaxdError with
 * PostgreSQL's SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html) and the
 * wording PostgreSQL's backend uses, so clients that match on either keep working.
 */
import { PaxdError, SQLSTATE } from '../../types/index.js';

/** Errors after which the byte stream cannot be trusted: the session ends with FATAL. */
const FATAL_ERRORS = new WeakSet<Error>();

/** True for a protocol violation that ends the connection (not a statement's 08P01 ERROR). */
export function isFatalProtocolError(e: unknown): boolean {
  return e instanceof Error && FATAL_ERRORS.has(e);
}

/** 08P01: the bytes do not follow protocol 3.0; the connection ends after it. */
export function protocolViolation(message: string): PaxdError {
  const e = new PaxdError('invalid_input', SQLSTATE.protocol_violation, message);
  FATAL_ERRORS.add(e);
  return e;
}

/** 08P01 as an ERROR (the session goes on): Bind with the wrong number of parameters. */
export { bindParameterCount } from '../../types/index.js';

/** A declared length outside what the message kind allows: `invalid message length 4000000000 for message type 'Q' (at most 1024)`. */
export function invalidLength(what: string, length: number, min: number, max: number): PaxdError {
  return protocolViolation(`invalid length ${length} of ${what}: expected ${min} to ${max} bytes`);
}

/** A message whose body ends before its fields do: `unexpected end of Bind message at byte 12 of 12`. */
export function truncatedMessage(what: string, at: number, size: number): PaxdError {
  return protocolViolation(`invalid ${what} message format: ended at byte ${at} of ${size}, a field is missing`);
}

/** A message with bytes left after its last field. */
export function trailingBytes(what: string, used: number, size: number): PaxdError {
  return protocolViolation(`invalid ${what} message format: ${size - used} bytes left after the last field (used ${used} of ${size})`);
}

/** A string field without its NUL terminator. */
export function unterminatedString(what: string, at: number): PaxdError {
  return protocolViolation(`invalid string in ${what} message: no NUL terminator after byte ${at}`);
}

/** A message code that is not a frontend message: `invalid frontend message type 122`. */
export function unknownMessage(code: number): PaxdError {
  return protocolViolation(`invalid frontend message type ${code} ('${String.fromCharCode(code)}')`);
}

/** A startup packet with a protocol version paxd does not speak (major != 3). */
export function unsupportedProtocol(code: number): PaxdError {
  return new PaxdError(
    'unsupported',
    SQLSTATE.feature_not_supported,
    `unsupported frontend protocol ${code >>> 16}.${code & 0xffff}: server supports 3.0 to 3.0`,
  );
}

/** A StartupMessage without the mandatory `user` parameter. */
export function noUser(): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_authorization_specification, 'no PostgreSQL user name specified in startup packet');
}

/** 25P02: a statement in a transaction block that already failed. */
export function inFailedTransaction(): PaxdError {
  return new PaxdError(
    'invalid_input',
    SQLSTATE.in_failed_sql_transaction,
    'current transaction is aborted, commands ignored until end of transaction block',
  );
}

/** 42704: SET/SHOW of a name paxd does not know. */
export function unknownParameter(name: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.undefined_object, `unrecognized configuration parameter "${name}"`);
}

/** 22023: a value a parameter does not accept. */
export function invalidParameterValue(name: string, value: string, expected: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid value for parameter "${name}": "${value}"`, {
    detail: `Expected ${expected}.`,
  });
}

/** 26000 / 34000: a named statement or portal that does not exist. */
export function unknownStatement(name: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.invalid_sql_statement_name, `prepared statement "${name}" does not exist`);
}

export function unknownPortal(name: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.invalid_cursor_name, `portal "${name}" does not exist`);
}

/** What `paxd serve` says when asked to trust clients on an address others can reach. */
export function trustNotLoopback(host: string): PaxdError {
  return new PaxdError(
    'usage',
    SQLSTATE.invalid_parameter_value,
    `refusing to listen on ${host} with trust authentication: trust is allowed only on a loopback address (127.0.0.1, ::1, localhost); configure users with SCRAM-SHA-256 to listen elsewhere`,
  );
}

/** 53300: past the configured number of connections, as PostgreSQL words it. */
export function tooManyConnections(): PaxdError {
  return new PaxdError('io', SQLSTATE.too_many_connections, 'sorry, too many clients already');
}

/** 57014 (../../types/errors.ts): CancelRequest and statement_timeout. */
export { queryCanceled } from '../../types/index.js';

/** 25P03: a session left idle inside a transaction block past idle_in_transaction_session_timeout. */
export function idleInTransactionTimeout(): PaxdError {
  return new PaxdError('io', SQLSTATE.idle_in_transaction_session_timeout, 'terminating connection due to idle-in-transaction timeout');
}

/** 57P05: a session idle past idle_session_timeout. */
export function idleSessionTimeout(): PaxdError {
  return new PaxdError('io', SQLSTATE.idle_session_timeout, 'terminating connection due to idle-session timeout');
}

/** 57P01: the server is shutting down. */
export function adminShutdown(): PaxdError {
  return new PaxdError('io', SQLSTATE.admin_shutdown, 'terminating connection due to administrator command');
}

/** 08P01: a message other than a password response while authenticating. */
export function expectedPassword(code: number): PaxdError {
  return protocolViolation(`expected password response, got message type ${code}`);
}

/** 08P01: bytes after SSLRequest before the TLS handshake (CVE-2021-23214): never parsed. */
export function unencryptedAfterSsl(): PaxdError {
  return protocolViolation('received unencrypted data after SSL request');
}

/** 25P01: a statement that needs a transaction block: `SAVEPOINT can only be used in transaction blocks`. */
export function onlyInTransactionBlock(what: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.no_active_sql_transaction, `${what} can only be used in transaction blocks`);
}

/** 25001: a statement that must not run inside a transaction block. */
export function notInTransactionBlock(what: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.active_sql_transaction, `${what} cannot run inside a transaction block`);
}

/**
 * 0A000: DDL and COPY FROM commit on their own (writes of INSERT/UPDATE/DELETE/TRUNCATE belong
 * to the transaction, ./transaction.ts), so inside a transaction block, where a ROLLBACK could
 * not undo them, they are refused rather than answered differently from PostgreSQL.
 */
export function writeInTransactionBlock(what: string): PaxdError {
  return new PaxdError('unsupported', SQLSTATE.feature_not_supported, `${what} inside a transaction block is not supported: paxd commits it on its own; run it outside BEGIN … COMMIT`);
}

/** 3B001: RELEASE / ROLLBACK TO of a savepoint that does not exist. */
export function unknownSavepoint(name: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.invalid_savepoint_specification, `savepoint "${name}" does not exist`);
}

/** 34000 / 42P03: cursors by name. */
export function unknownCursor(name: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.invalid_cursor_name, `cursor "${name}" does not exist`);
}

export function duplicateCursor(name: string): PaxdError {
  return new PaxdError('exists', SQLSTATE.duplicate_cursor, `cursor "${name}" already exists`);
}

/** 57014: COPY FROM STDIN ended by the client's CopyFail. */
export function copyFailed(message: string): PaxdError {
  return new PaxdError('io', SQLSTATE.query_canceled, `COPY from stdin failed: ${message}`);
}

/** 08P01: a message that is not CopyData/CopyDone/CopyFail during COPY FROM STDIN. */
export function unexpectedDuringCopy(code: number): PaxdError {
  return protocolViolation(`unexpected message type 0x${code.toString(16).toUpperCase().padStart(2, '0')} during COPY from stdin`);
}
