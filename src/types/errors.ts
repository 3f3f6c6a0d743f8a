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
  | 'privilege' // not allowed to this user (42501)
  | 'internal'; // a bug: an assertion that failed

/**
 * Every SQLSTATE paxd raises, named as PostgreSQL's errcodes.txt names the condition
 * (https://www.postgresql.org/docs/15/errcodes-appendix.html). This is the only table: code
 * elsewhere names a condition (`SQLSTATE.undefined_column`) or calls a constructor below,
 * never writes a code literally.
 */
export const SQLSTATE = {
  // class 08: connection exception
  sqlclient_unable_to_establish_sqlconnection: '08001',
  connection_failure: '08006',
  protocol_violation: '08P01',
  // class 0A
  feature_not_supported: '0A000',
  // class 0L
  invalid_grant_operation: '0LP01',
  // class 21
  cardinality_violation: '21000',
  // class 22: data exception
  string_data_right_truncation: '22001',
  numeric_value_out_of_range: '22003',
  invalid_datetime_format: '22007',
  datetime_field_overflow: '22008',
  invalid_time_zone_displacement_value: '22009',
  substring_error: '22011',
  division_by_zero: '22012',
  invalid_preceding_or_following_size: '22013',
  invalid_argument_for_ntile_function: '22014',
  invalid_argument_for_nth_value_function: '22016',
  null_value_not_allowed: '22004',
  character_not_in_repertoire: '22021',
  invalid_parameter_value: '22023',
  invalid_escape_sequence: '22025',
  invalid_regular_expression: '2201B',
  invalid_argument_for_logarithm: '2201E',
  invalid_argument_for_power_function: '2201F',
  invalid_argument_for_width_bucket_function: '2201G',
  invalid_row_count_in_limit_clause: '2201W',
  invalid_row_count_in_result_offset_clause: '2201X',
  invalid_text_representation: '22P02',
  invalid_binary_representation: '22P03',
  bad_copy_file_format: '22P04',
  untranslatable_character: '22P05',
  // class 23: integrity constraint violation
  not_null_violation: '23502',
  unique_violation: '23505',
  // class 2B
  dependent_objects_still_exist: '2BP01',
  // class 25: invalid transaction state
  active_sql_transaction: '25001',
  no_active_sql_transaction: '25P01',
  in_failed_sql_transaction: '25P02',
  idle_in_transaction_session_timeout: '25P03',
  // class 26, 28, 34, 3B, 3D, 3F
  invalid_sql_statement_name: '26000',
  invalid_authorization_specification: '28000',
  invalid_password: '28P01',
  invalid_cursor_name: '34000',
  invalid_savepoint_specification: '3B001',
  invalid_catalog_name: '3D000',
  invalid_schema_name: '3F000',
  // class 40
  serialization_failure: '40001',
  // class 42: syntax error or access rule violation
  insufficient_privilege: '42501',
  syntax_error: '42601',
  invalid_name: '42602',
  duplicate_column: '42701',
  ambiguous_column: '42702',
  undefined_column: '42703',
  undefined_object: '42704',
  duplicate_object: '42710',
  duplicate_alias: '42712',
  ambiguous_function: '42725',
  grouping_error: '42803',
  datatype_mismatch: '42804',
  wrong_object_type: '42809',
  cannot_coerce: '42846',
  undefined_function: '42883',
  undefined_table: '42P01',
  undefined_parameter: '42P02',
  duplicate_cursor: '42P03',
  duplicate_prepared_statement: '42P05',
  duplicate_table: '42P07',
  invalid_column_reference: '42P10',
  invalid_recursion: '42P19',
  invalid_table_definition: '42P16',
  invalid_object_definition: '42P17',
  reserved_name: '42939',
  indeterminate_datatype: '42P18',
  windowing_error: '42P20',
  // class 53, 54, 55, 57, 58: resources, limits, state, operator intervention, system
  insufficient_resources: '53000',
  disk_full: '53100',
  out_of_memory: '53200',
  too_many_connections: '53300',
  program_limit_exceeded: '54000',
  statement_too_complex: '54001',
  too_many_columns: '54011',
  too_many_arguments: '54023',
  object_not_in_prerequisite_state: '55000',
  object_in_use: '55006',
  cant_change_runtime_param: '55P02',
  query_canceled: '57014',
  admin_shutdown: '57P01',
  idle_session_timeout: '57P05',
  io_error: '58030',
  undefined_file: '58P01',
  duplicate_file: '58P02',
  // class XX: internal error
  internal_error: 'XX000',
  data_corrupted: 'XX001',
  index_corrupted: 'XX002',
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
  /** PostgreSQL's statement position: a 1-based character offset into the SQL text. */
  position?: number | undefined;
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
  readonly position?: number;
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
    if (loc.position !== undefined && loc.position > 0) this.position = loc.position;
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
    if (this.position !== undefined) l.position = this.position;
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

/**
 * 57014: a statement stopped by a cancel (CancelRequest, psql's Ctrl-C, an HTTP client that went
 * away) or by statement_timeout, in PostgreSQL's words (postgres.c ProcessInterrupts).
 */
export function queryCanceled(why: 'user' | 'timeout'): PaxdError {
  return new PaxdError('io', SQLSTATE.query_canceled, why === 'user' ? 'canceling statement due to user request' : 'canceling statement due to statement timeout');
}

/** 0A000, naming what paxd lacks: `ORDER BY in an aggregate is not supported`. */
export function featureNotSupported(what: string, position?: number): PaxdError {
  return new PaxdError('unsupported', SQLSTATE.feature_not_supported, `${what} is not supported`, { position });
}

/** The same as featureNotSupported (the storage layers' older name). */
export const unsupported = featureNotSupported;

// ---- SQL conditions, worded as PostgreSQL 15's backend words them (every front door raises
// these, so a condition reads the same through SQL, COPY, `paxd ingest` and HTTP) ----

/**
 * 23502, ExecConstraints' wording: `null value in column "id" of relation "t" violates
 * not-null constraint`. `loc` places it in the input (file, line, row) where one is known.
 */
export function notNullViolation(column: string, relation: string, loc: ErrorLocation & { detail?: string } = {}): PaxdError {
  return new PaxdError('constraint', SQLSTATE.not_null_violation, `null value in column "${column}" of relation "${relation}" violates not-null constraint`, {
    columnName: column,
    ...loc,
  });
}

/**
 * 42703. With a relation, as PostgreSQL says it of a column list (INSERT, COPY, an ingest
 * header): `column "x" of relation "t" does not exist`; with a table qualifier, as for `t.x`:
 * `column t.x does not exist`; bare, as for a name in a query: `column "x" does not exist`.
 */
export function undefinedColumn(name: string, where: { relation?: string; qualifier?: string; position?: number | undefined } = {}): PaxdError {
  const message =
    where.qualifier !== undefined
      ? `column ${where.qualifier}.${name} does not exist`
      : where.relation !== undefined
        ? `column "${name}" of relation "${where.relation}" does not exist`
        : `column "${name}" does not exist`;
  return new PaxdError('not_found', SQLSTATE.undefined_column, message, { columnName: name, position: where.position });
}

/** 42P01: `relation "t" does not exist`. */
export function undefinedTable(name: string, position?: number): PaxdError {
  return new PaxdError('not_found', SQLSTATE.undefined_table, `relation "${name}" does not exist`, { position });
}

/** 22012, int4div's and numeric_div's wording. */
export function divisionByZero(): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.division_by_zero, 'division by zero');
}

/** 42601. */
export function syntaxError(message: string, position?: number): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.syntax_error, message, { position });
}

/** 42883: `function f(integer) does not exist`. */
export function undefinedFunction(signature: string, position?: number): PaxdError {
  return new PaxdError('not_found', SQLSTATE.undefined_function, `function ${signature} does not exist`, { position });
}

/** 42883: `operator does not exist: text + integer`. */
export function undefinedOperator(signature: string, position?: number): PaxdError {
  return new PaxdError('not_found', SQLSTATE.undefined_function, `operator does not exist: ${signature}`, { position });
}

/** 42804. */
export function datatypeMismatch(message: string, position?: number): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.datatype_mismatch, message, { position });
}

/** 42803: `aggregate functions are not allowed in WHERE`. */
export function aggregateNotAllowed(where: string, position?: number): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.grouping_error, `aggregate functions are not allowed in ${where}`, { position });
}

/** 42P02: `there is no parameter $3`. */
export function undefinedParameter(n: number, position?: number): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.undefined_parameter, `there is no parameter $${n}`, { position });
}

/** 2201W / 2201X, PostgreSQL's wording for a negative LIMIT or OFFSET. */
export function invalidRowCount(clause: 'LIMIT' | 'OFFSET'): PaxdError {
  const code = clause === 'LIMIT' ? SQLSTATE.invalid_row_count_in_limit_clause : SQLSTATE.invalid_row_count_in_result_offset_clause;
  return new PaxdError('invalid_input', code, `${clause} must not be negative`);
}

/** 08P01 as a statement's ERROR: Bind with the wrong number of parameters. */
export function bindParameterCount(given: number, statement: string, required: number): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.protocol_violation, `bind message supplies ${given} parameters, but prepared statement "${statement}" requires ${required}`);
}

/** XX001 for damage found by a check: a missing or short file. */
export function dataCorrupted(message: string, loc: ErrorLocation = {}): PaxdError {
  return new PaxdError('corruption', SQLSTATE.data_corrupted, message, loc);
}

/**
 * 54001 in PostgreSQL's words, for a statement nested deeper than the stack allows (10,000
 * `1+1+…`, 2,000 nested coalesce): JavaScript's stack overflow is a RangeError, which would
 * otherwise surface as XX000. `e` unchanged when it is anything else.
 */
export function stackDepthOf(e: unknown): unknown {
  if (!(e instanceof RangeError) || !e.message.includes('call stack size')) return e;
  return new PaxdError('invalid_input', SQLSTATE.statement_too_complex, 'stack depth limit exceeded', {
    hint: 'The statement is nested too deeply (expressions, subqueries or set operations); paxd has no max_stack_depth to raise: flatten it.',
    cause: e,
  });
}

/** XX000 with the cause's message: a worker or dependency failed in a way that is paxd's bug. */
export function internalError(message: string, cause?: unknown): PaxdError {
  return new PaxdError('internal', SQLSTATE.internal_error, message, { cause });
}

export function usage(message: string, loc: ErrorLocation = {}): PaxdError {
  return new PaxdError('usage', SQLSTATE.invalid_parameter_value, message, loc);
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

/** An object the caller expected is not in the store: `could not open file "t/data/1.pax": no such file`. */
export function objectNotFound(file: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.undefined_file, `could not open file "${file}": no such file`, { file });
}

/** `create()` of a path that already exists (names are never reused). */
export function objectExists(file: string): PaxdError {
  return new PaxdError('exists', SQLSTATE.duplicate_file, `could not create file "${file}": file exists`, { file });
}

/** `relation "t" does not exist`, as PostgreSQL says it (42P01). */
export function tableNotFound(table: string): PaxdError {
  return undefinedTable(table);
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
