/**
 * Every byte of protocol 3.0 that paxd reads or writes, named as PostgreSQL's protocol
 * documentation names it (https://www.postgresql.org/docs/15/protocol-message-formats.html).
 * Message codes are the first byte of a regular message; startup packets have none.
 */

/** Frontend (client → server) message codes. */
export const FRONTEND = {
  /** 'Q' Query: a simple-protocol query string. */
  query: 0x51,
  /** 'X' Terminate: the client is closing the connection. */
  terminate: 0x58,
  /** 'P' Parse: prepare a statement (extended protocol). */
  parse: 0x50,
  /** 'B' Bind: bind parameters to a prepared statement, making a portal. */
  bind: 0x42,
  /** 'D' Describe: a statement ('S') or portal ('P'). */
  describe: 0x44,
  /** 'E' Execute: run a portal, with a row limit (0 = all). */
  execute: 0x45,
  /** 'S' Sync: end of an extended-protocol batch; answered with ReadyForQuery. */
  sync: 0x53,
  /** 'H' Flush: send what is buffered. */
  flush: 0x48,
  /** 'C' Close: a statement ('S') or portal ('P'). */
  close: 0x43,
  /** 'd' CopyData. */
  copyData: 0x64,
  /** 'c' CopyDone. */
  copyDone: 0x63,
  /** 'f' CopyFail. */
  copyFail: 0x66,
  /** 'p' PasswordMessage / SASLInitialResponse / SASLResponse (by context). */
  password: 0x70,
  /** 'F' FunctionCall (legacy fast-path; refused). */
  functionCall: 0x46,
} as const;

/** Backend (server → client) message codes. */
export const BACKEND = {
  /** 'R' Authentication*: the int32 after the length says which. */
  authentication: 0x52,
  /** 'S' ParameterStatus: name and value of a reported run-time parameter. */
  parameterStatus: 0x53,
  /** 'K' BackendKeyData: process id and secret key, for CancelRequest. */
  backendKeyData: 0x4b,
  /** 'Z' ReadyForQuery: transaction status 'I', 'T' or 'E'. */
  readyForQuery: 0x5a,
  /** 'T' RowDescription. */
  rowDescription: 0x54,
  /** 'D' DataRow. */
  dataRow: 0x44,
  /** 'C' CommandComplete: the command tag ('SELECT 3'). */
  commandComplete: 0x43,
  /** 'I' EmptyQueryResponse: the query string held no statement. */
  emptyQueryResponse: 0x49,
  /** 'E' ErrorResponse. */
  errorResponse: 0x45,
  /** 'N' NoticeResponse. */
  noticeResponse: 0x4e,
  /** '1' ParseComplete. */
  parseComplete: 0x31,
  /** '2' BindComplete. */
  bindComplete: 0x32,
  /** '3' CloseComplete. */
  closeComplete: 0x33,
  /** 'n' NoData: the statement returns no rows (Describe). */
  noData: 0x6e,
  /** 't' ParameterDescription. */
  parameterDescription: 0x74,
  /** 's' PortalSuspended: Execute's row limit was reached. */
  portalSuspended: 0x73,
  /** 'G' CopyInResponse: the client sends CopyData then CopyDone or CopyFail. */
  copyInResponse: 0x47,
  /** 'H' CopyOutResponse: CopyData follows, then CopyDone. */
  copyOutResponse: 0x48,
  /** 'd' CopyData. */
  copyData: 0x64,
  /** 'c' CopyDone. */
  copyDone: 0x63,
  /** 'v' NegotiateProtocolVersion: the newest minor version and unrecognized `_pq_.` options. */
  negotiateProtocolVersion: 0x76,
} as const;

/** The int32 after 'R' in Authentication* messages. */
export const AUTH = {
  /** AuthenticationOk. */
  ok: 0,
  /** AuthenticationCleartextPassword. */
  cleartextPassword: 3,
  /** AuthenticationMD5Password. */
  md5Password: 5,
  /** AuthenticationSASL. */
  sasl: 10,
  /** AuthenticationSASLContinue. */
  saslContinue: 11,
  /** AuthenticationSASLFinal. */
  saslFinal: 12,
} as const;

/**
 * The int32 code of a startup packet (after its length). Protocol versions are major << 16 |
 * minor; the three requests use codes no protocol version has (1234 << 16 | 5678 and friends).
 */
export const STARTUP = {
  /** Protocol 3.0: a StartupMessage. */
  protocol30: 0x0003_0000,
  /** CancelRequest: 1234 << 16 | 5678. */
  cancelRequest: 80877102,
  /** SSLRequest: 1234 << 16 | 5679. */
  sslRequest: 80877103,
  /** GSSENCRequest: 1234 << 16 | 5680. */
  gssEncRequest: 80877104,
} as const;

/** The single byte that answers SSLRequest or GSSENCRequest: 'N', not supported. */
export const REFUSE_ENCRYPTION = 0x4e;
/** The single byte that accepts SSLRequest: 'S' (TLS handshake follows). */
export const ACCEPT_SSL = 0x53;

/** ReadyForQuery's transaction status byte. */
export const TX_STATUS = {
  /** 'I' idle, not in a transaction block. */
  idle: 0x49,
  /** 'T' in a transaction block. */
  inTransaction: 0x54,
  /** 'E' in a failed transaction block (queries are refused until ROLLBACK). */
  failed: 0x45,
} as const;
export type TxStatus = (typeof TX_STATUS)[keyof typeof TX_STATUS];

/** Field type bytes of ErrorResponse/NoticeResponse (protocol-error-fields.html). */
export const ERROR_FIELD = {
  /** 'S' severity, localized. */
  severity: 0x53,
  /** 'V' severity, never localized (9.6+). */
  severityRaw: 0x56,
  /** 'C' SQLSTATE code. */
  code: 0x43,
  /** 'M' primary message. */
  message: 0x4d,
  /** 'D' detail. */
  detail: 0x44,
  /** 'H' hint. */
  hint: 0x48,
  /** 'W' where: the context of the error, e.g. `COPY t, line 3, column x: "12x"`. */
  where: 0x57,
  /** 'P' position: 1-based character index into the query string. */
  position: 0x50,
} as const;

/** Result/parameter format codes. */
export const FORMAT = {
  text: 0,
  binary: 1,
} as const;

/** Describe/Close targets. */
export const TARGET = {
  /** 'S' a prepared statement. */
  statement: 0x53,
  /** 'P' a portal. */
  portal: 0x50,
} as const;

/**
 * Size limits, as PostgreSQL sets them (postmaster.c MAX_STARTUP_PACKET_LENGTH,
 * postgres.c PQ_SMALL_MESSAGE_LIMIT / PQ_LARGE_MESSAGE_LIMIT). Lengths include their own 4
 * bytes, as on the wire; each is checked before a byte of the body is buffered.
 */
export const LIMITS = {
  /** A startup packet, length included. */
  startupPacket: 10_000,
  /** The smallest startup packet: length + code. */
  minStartupPacket: 8,
  /** Sync, Flush, Execute, Close, Describe, Terminate: length included. */
  smallMessage: 10_000,
  /** PasswordMessage (PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH). */
  password: 65_535,
  /** SASLInitialResponse / SASLResponse (PostgreSQL's PG_MAX_SASL_MESSAGE_LENGTH). */
  saslMessage: 1_024,
  /** Default for every other message: 1 GB - 1, PostgreSQL's MaxAllocSize. */
  defaultMaxMessage: 0x3fff_ffff,
} as const;

/** Bytes before a regular message's body: code (1) + int32 length (4). */
export const MESSAGE_HEADER = 5;
/** Bytes before a startup packet's body: int32 length (4). */
export const STARTUP_HEADER = 4;
