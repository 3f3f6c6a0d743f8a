/**
 * The error taxonomy of paxd. Every error a user can see is a PaxdError carrying a
 * PostgreSQL SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html) and,
 * where known, where it happened (file, byte offset, line, column).
 *
 * Tests assert `code` and `kind` and the location fields, never the prose.
 */

/** The broad kinds a caller can branch on. */
export type ErrorKind =
  | 'invalid_input' // bad user data: a value that does not parse, a row that does not fit
  | 'constraint' // NOT NULL and friends
  | 'corruption' // a checksum or structural check failed on stored bytes
  | 'io' // the medium failed (ENOSPC, EIO, a network error after retries)
  | 'conflict' // a concurrent commit won and retries ran out
  | 'not_found' // no such table, file or snapshot
  | 'exists' // the thing to create is already there
  | 'unsupported' // a feature paxd does not have (0A000)
  | 'usage' // bad flags or arguments
  | 'internal'; // a bug: an assertion that failed

/** SQLSTATEs used by paxd, named as PostgreSQL's errcodes.txt names them. */
export const SQLSTATE = {
  invalid_text_representation: '22P02',
  numeric_value_out_of_range: '22003',
  string_data_right_truncation: '22001',
  datetime_field_overflow: '22008',
  invalid_datetime_format: '22007',
  character_not_in_repertoire: '22021',
  invalid_binary_representation: '22P03',
  bad_copy_file_format: '22P04',
  not_null_violation: '23502',
  data_corrupted: 'XX001',
  index_corrupted: 'XX002',
  internal_error: 'XX000',
  io_error: '58030',
  undefined_table: '42P01',
  duplicate_table: '42P07',
  undefined_column: '42703',
  duplicate_column: '42701',
  undefined_object: '42704',
  syntax_error: '42601',
  invalid_parameter_value: '22023',
  feature_not_supported: '0A000',
  serialization_failure: '40001',
  disk_full: '53100',
  out_of_memory: '53200',
  datatype_mismatch: '42804',
  invalid_time_zone_displacement_value: '22009',
  untranslatable_character: '22P05',
} as const;
export type SqlState = (typeof SQLSTATE)[keyof typeof SQLSTATE];

export interface ErrorLocation {
  /** A file path or URI (data file, snapshot, input file). */
  file?: string;
  /** Byte offset in `file`. */
  offset?: number;
  /** 1-based input line (as PostgreSQL's COPY counts them). */
  line?: number;
  /** 1-based input column position. */
  column?: number;
  /** Column name, where one applies. */
  columnName?: string;
  /** 1-based row number of the input, where lines do not apply. */
  row?: number;
}

export class PaxdError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly file?: string;
  readonly offset?: number;
  readonly line?: number;
  readonly column?: number;
  readonly columnName?: string;
  readonly row?: number;
  readonly detail?: string;
  /** PostgreSQL's HINT: what to do about it. */
  readonly hint?: string;

  constructor(kind: ErrorKind, code: string, message: string, loc: ErrorLocation & { detail?: string; hint?: string; cause?: unknown } = {}) {
    super(message, loc.cause === undefined ? undefined : { cause: loc.cause });
    this.name = 'PaxdError';
    this.kind = kind;
    this.code = code;
    if (loc.file !== undefined) this.file = loc.file;
    if (loc.offset !== undefined) this.offset = loc.offset;
    if (loc.line !== undefined) this.line = loc.line;
    if (loc.column !== undefined) this.column = loc.column;
    if (loc.columnName !== undefined) this.columnName = loc.columnName;
    if (loc.row !== undefined) this.row = loc.row;
    if (loc.detail !== undefined) this.detail = loc.detail;
    if (loc.hint !== undefined) this.hint = loc.hint;
  }

  /** A copy of this error placed at an input location: `data.csv:1042:3: message`. */
  at(loc: ErrorLocation): PaxdError {
    const where = [loc.file, loc.line, loc.column].filter((x) => x !== undefined).join(':');
    const e = new PaxdError(this.kind, this.code, where ? `${where}: ${this.message}` : this.message, {
      ...this.location(),
      ...loc,
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      ...(this.hint !== undefined ? { hint: this.hint } : {}),
    });
    return e;
  }

  location(): ErrorLocation {
    const l: ErrorLocation = {};
    if (this.file !== undefined) l.file = this.file;
    if (this.offset !== undefined) l.offset = this.offset;
    if (this.line !== undefined) l.line = this.line;
    if (this.column !== undefined) l.column = this.column;
    if (this.columnName !== undefined) l.columnName = this.columnName;
    if (this.row !== undefined) l.row = this.row;
    return l;
  }
}

// ---- constructors, one per situation, so messages stay uniform ----

export function invalidInput(typeName: string, text: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_text_representation, `invalid input syntax for type ${typeName}: "${text}"`);
}

export function outOfRange(typeName: string, text: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.numeric_value_out_of_range, `value "${text}" is out of range for type ${typeName}`);
}

export function corruption(file: string, offset: number, what: string): PaxdError {
  return new PaxdError('corruption', SQLSTATE.data_corrupted, `${what} (file ${file}, offset ${offset})`, { file, offset });
}

export function checksumMismatch(what: string, file: string, offset: number, actual: number, expected: number): PaxdError {
  const hex = (n: number) => '0x' + (n >>> 0).toString(16).padStart(8, '0');
  return corruption(file, offset, `${what}: checksum ${hex(actual)}, expected ${hex(expected)}`);
}

export function unsupported(feature: string): PaxdError {
  return new PaxdError('unsupported', SQLSTATE.feature_not_supported, `${feature} is not supported`);
}

export function usage(message: string): PaxdError {
  return new PaxdError('usage', SQLSTATE.invalid_parameter_value, message);
}

export function ioError(message: string, file?: string, cause?: unknown): PaxdError {
  return new PaxdError('io', SQLSTATE.io_error, message, { ...(file !== undefined ? { file } : {}), cause });
}

/**
 * A failed file operation, worded and coded as PostgreSQL's errcode_for_file_access()
 * (src/backend/utils/error/elog.c) for the case paxd tells apart: ENOSPC is disk_full (53100),
 * `could not write to file "t/data/1.pax": No space left on device`; anything else is
 * io_error (58030) with the system's message. Kind 'io' either way: the medium's fault,
 * never the input's. A PaxdError passes through unchanged.
 *
 *   fileError('write to', 'rejects.ndjson', enospc)  // 53100 could not write to file "rejects.ndjson": No space left on device
 */
export function fileError(action: string, file: string, cause: unknown): PaxdError {
  if (cause instanceof PaxdError) return cause;
  if (isDiskFull(cause)) return new PaxdError('io', SQLSTATE.disk_full, `could not ${action} file "${file}": No space left on device`, { file, cause });
  const reason = cause instanceof Error ? cause.message : String(cause);
  return ioError(`could not ${action} file "${file}": ${reason}`, file, cause);
}

/** ENOSPC, or EDQUOT (a quota is a full disk for its user; PostgreSQL's message is the system's). */
export function isDiskFull(e: unknown): boolean {
  const code = errnoOf(e);
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** The errno name of a Node system error ('ENOSPC', 'EIO', …), or undefined for anything else. */
export function errnoOf(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null || !('code' in e) || typeof e.code !== 'string') return undefined;
  return /^E[A-Z0-9]+$/.test(e.code) ? e.code : undefined;
}

/** An assertion: a failure here is a bug in paxd, never a user's mistake. */
export function assert(cond: unknown, what: string): asserts cond {
  if (!cond) throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: ${what}`);
}

/**
 * The default branch of a switch over a closed set (type ids, plan nodes, codecs, …):
 *
 *   default:
 *     return unreachable(t.id);
 *
 * does not compile while a member of the set lacks a case. If a value from outside the type
 * system arrives anyway (a bug), it throws an internal error (XX000) naming that value.
 */
export function unreachable(x: never): never {
  throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: unexpected value ${describeValue(x)}`);
}

/** `"text"`, `12`, or an object's JSON (bigints as digits), cut to 200 characters. */
function describeValue(x: unknown): string {
  if (typeof x === 'string') return JSON.stringify(x);
  if (typeof x !== 'object' || x === null) return String(x);
  let json: string;
  try {
    json = JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  } catch {
    json = Object.prototype.toString.call(x); // a cycle
  }
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}

export function isPaxdError(e: unknown): e is PaxdError {
  return e instanceof PaxdError;
}

// ---- storage (src/storage) ----

/** PostgreSQL's undefined_file / duplicate_file (class 58, system errors). */
const UNDEFINED_FILE = '58P01';
const DUPLICATE_FILE = '58P02';

/** An object the caller expected is not in the store: `could not open file "t/data/1.pax": no such file`. */
export function objectNotFound(file: string): PaxdError {
  return new PaxdError('not_found', UNDEFINED_FILE, `could not open file "${file}": no such file`, { file });
}

/** `create()` of a path that already exists (names are never reused). */
export function objectExists(file: string): PaxdError {
  return new PaxdError('exists', DUPLICATE_FILE, `could not create file "${file}": file exists`, { file });
}

/** `relation "t" does not exist`, as PostgreSQL says it (42P01). */
export function tableNotFound(table: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.undefined_table, `relation "${table}" does not exist`);
}

/** `relation "t" already exists` (42P07). */
export function tableExists(table: string): PaxdError {
  return new PaxdError('exists', SQLSTATE.duplicate_table, `relation "${table}" already exists`);
}

/** A snapshot number that is not in the store (vacuumed, or never committed). */
export function snapshotNotFound(table: string, id: number, file: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.undefined_object, `snapshot ${id} of relation "${table}" does not exist`, { file });
}

/** The commit loop lost the race too often (40001, so clients retry the transaction). */
export function commitConflict(table: string, attempts: number, elapsedMs: number): PaxdError {
  return new PaxdError(
    'conflict',
    SQLSTATE.serialization_failure,
    `could not serialize access due to concurrent commits to relation "${table}" (gave up after ${attempts} attempts in ${elapsedMs} ms)`,
  );
}
