/**
 * The engine's side of the error family (../types/errors.ts holds the one SQLSTATE table and
 * the constructors every layer shares). The SQL front end knows libpg-query locations, 0-based
 * byte offsets; these adapters turn them into PostgreSQL's 1-based statement positions, so a
 * condition has one message wherever it is raised.
 */
import * as E from '../types/index.js';
import { PaxdError, SQLSTATE } from '../types/index.js';

/** A PaxdError raised by SQL: `new SqlError(kind, code, message, position)`. */
export class SqlError extends PaxdError {
  constructor(kind: ConstructorParameters<typeof PaxdError>[0], code: string, message: string, position?: number) {
    super(kind, code, message, { position });
  }
}

/** libpg-query locations are 0-based byte offsets (-1 when unknown); PostgreSQL reports 1-based. */
export function positionOf(location: number | undefined): number | undefined {
  return location === undefined || location < 0 ? undefined : location + 1;
}

export function syntaxError(message: string, position?: number): PaxdError {
  return E.syntaxError(message, position);
}

/** 0A000, naming the feature: `ORDER BY in an aggregate is not supported`. */
export function notSupported(feature: string, location?: number): PaxdError {
  return E.featureNotSupported(feature, positionOf(location));
}

export function undefinedTable(name: string, location?: number): PaxdError {
  return E.undefinedTable(name, positionOf(location));
}

/** `column "x" does not exist`; `relation` for a column list (`column "x" of relation "t" …`). */
export function undefinedColumn(name: string, location?: number, relation?: string): PaxdError {
  return E.undefinedColumn(name, { position: positionOf(location), ...(relation !== undefined ? { relation } : {}) });
}

export function undefinedFunction(signature: string, location?: number): PaxdError {
  return E.undefinedFunction(signature, positionOf(location));
}

export function undefinedOperator(signature: string, location?: number): PaxdError {
  return E.undefinedOperator(signature, positionOf(location));
}

export function datatypeMismatch(message: string, location?: number): PaxdError {
  return E.datatypeMismatch(message, positionOf(location));
}

export function groupingError(table: string, column: string, location?: number): SqlError {
  return new SqlError('invalid_input', SQLSTATE.grouping_error, `column "${table}.${column}" must appear in the GROUP BY clause or be used in an aggregate function`, positionOf(location));
}

export function aggregateNotAllowed(where: string, location?: number): PaxdError {
  return E.aggregateNotAllowed(where, positionOf(location));
}

export const divisionByZero = E.divisionByZero;

/** `integer out of range` (22003), with PostgreSQL's type wording. */
export function outOfRange(what: 'smallint' | 'integer' | 'bigint'): SqlError {
  return new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, `${what} out of range`);
}

export function floatOverflow(): SqlError {
  return new SqlError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'value out of range: overflow');
}

/** 53200: a hash table outgrew the work memory; the statement fails, the process lives on. */
export function workMemExceeded(what: string, bytes: number): SqlError {
  return new SqlError('usage', SQLSTATE.out_of_memory, `out of memory: ${what} ${WORK_MEM_EXCEEDED} (${Math.round(bytes / 1048576)} MB)`);
}

const WORK_MEM_EXCEEDED = 'needs more than work_mem';

/** Whether `e` is workMemExceeded's error (also when it crossed from a worker thread as its code and message). */
export function isWorkMemExceeded(e: unknown): boolean {
  const x = e as { code?: unknown; message?: unknown } | null;
  return x !== null && typeof x === 'object' && x.code === SQLSTATE.out_of_memory && typeof x.message === 'string' && x.message.includes(WORK_MEM_EXCEEDED);
}
