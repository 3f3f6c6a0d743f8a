/**
 * Errors the SQL engine raises, one small constructor per situation so that messages read as
 * PostgreSQL's do (https://www.postgresql.org/docs/15/errcodes-appendix.html). `position` is
 * PostgreSQL's: a 1-based character offset into the statement text, where known.
 */
import { PaxdError, SQLSTATE } from '../types/index.js';

/** PostgreSQL SQLSTATEs the engine uses that the storage layers do not. */
export const ENGINE_SQLSTATE = {
  division_by_zero: '22012',
  grouping_error: '42803',
  undefined_function: '42883',
  ambiguous_column: '42702',
  undefined_parameter: '42P02',
  invalid_column_reference: '42P10',
  invalid_row_count_in_limit_clause: '2201W',
  invalid_row_count_in_result_offset_clause: '2201X',
  invalid_argument_for_power_function: '2201F',
  ambiguous_function: '42725',
  cannot_coerce: '42846',
} as const;

/** A PaxdError carrying PostgreSQL's statement position (1-based; absent when unknown). */
export class SqlError extends PaxdError {
  readonly position?: number;
  constructor(kind: ConstructorParameters<typeof PaxdError>[0], code: string, message: string, position?: number) {
    super(kind, code, message);
    if (position !== undefined && position > 0) this.position = position;
  }
}

/** libpg-query locations are 0-based byte offsets (-1 when unknown); PostgreSQL reports 1-based. */
export function positionOf(location: number | undefined): number | undefined {
  return location === undefined || location < 0 ? undefined : location + 1;
}

export function syntaxError(message: string, position?: number): SqlError {
  return new SqlError('invalid_input', SQLSTATE.syntax_error, message, position);
}

/** 0A000, naming the feature: `ORDER BY in an aggregate is not supported`. */
export function notSupported(feature: string, location?: number): SqlError {
  return new SqlError('unsupported', SQLSTATE.feature_not_supported, `${feature} is not supported`, positionOf(location));
}

export function undefinedTable(name: string, location?: number): SqlError {
  return new SqlError('not_found', SQLSTATE.undefined_table, `relation "${name}" does not exist`, positionOf(location));
}

export function undefinedColumn(name: string, location?: number): SqlError {
  return new SqlError('not_found', SQLSTATE.undefined_column, `column "${name}" does not exist`, positionOf(location));
}

export function undefinedFunction(signature: string, location?: number): SqlError {
  return new SqlError('not_found', ENGINE_SQLSTATE.undefined_function, `function ${signature} does not exist`, positionOf(location));
}

export function undefinedOperator(signature: string, location?: number): SqlError {
  return new SqlError('not_found', ENGINE_SQLSTATE.undefined_function, `operator does not exist: ${signature}`, positionOf(location));
}

export function datatypeMismatch(message: string, location?: number): SqlError {
  return new SqlError('invalid_input', SQLSTATE.datatype_mismatch, message, positionOf(location));
}

export function groupingError(table: string, column: string, location?: number): SqlError {
  return new SqlError('invalid_input', ENGINE_SQLSTATE.grouping_error, `column "${table}.${column}" must appear in the GROUP BY clause or be used in an aggregate function`, positionOf(location));
}

export function aggregateNotAllowed(where: string, location?: number): SqlError {
  return new SqlError('invalid_input', ENGINE_SQLSTATE.grouping_error, `aggregate functions are not allowed in ${where}`, positionOf(location));
}

export function divisionByZero(): SqlError {
  return new SqlError('invalid_input', ENGINE_SQLSTATE.division_by_zero, 'division by zero');
}

/** `integer out of range` (22003), with PostgreSQL's type wording. */
export function outOfRange(what: 'smallint' | 'integer' | 'bigint'): SqlError {
  return new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, `${what} out of range`);
}

export function floatOverflow(): SqlError {
  return new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'value out of range: overflow');
}

/** 53200: a hash table outgrew the work memory; the statement fails, the process lives on. */
export function workMemExceeded(what: string, bytes: number): SqlError {
  return new SqlError('usage', SQLSTATE.out_of_memory, `out of memory: ${what} needs more than work_mem (${Math.round(bytes / 1048576)} MB)`);
}
