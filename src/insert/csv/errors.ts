/**
 * The errors of CSV input, worded and coded as PostgreSQL 15's COPY words them
 * (commands/copyfromparse.c, commands/copyfrom.c, executor/execMain.c ExecConstraints).
 * The reader places them with PaxdError.at(): `data.csv:1042:3: extra data after last expected column`.
 */
import { PaxdError, SQLSTATE, unreachable, undefinedColumn as sharedUndefinedColumn } from '../../types/index.js';
import { RecordError } from './tokenizer.js';

function badFormat(message: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.bad_copy_file_format, message);
}

/** An error the tokenizer found in a record. */
export function recordError(e: RecordError): PaxdError {
  switch (e) {
    case RecordError.UnquotedCR:
      return badFormat('unquoted carriage return found in data');
    case RecordError.UnquotedLF:
      return badFormat('unquoted newline found in data');
    case RecordError.Unterminated:
      return badFormat('unterminated CSV quoted field');
    case RecordError.MarkerStyle:
      return badFormat('end-of-copy marker does not match previous newline style');
    case RecordError.ExtraData:
      return badFormat('extra data after last expected column');
    case RecordError.LiteralCR:
      return badFormat('literal carriage return found in data');
    case RecordError.LiteralLF:
      return badFormat('literal newline found in data');
    case RecordError.MarkerCorrupt:
      return badFormat('end-of-copy marker corrupt');
    case RecordError.None:
      throw new Error('recordError: no error');
    default:
      return unreachable(e);
  }
}

export function missingData(column: string): PaxdError {
  return badFormat(`missing data for column "${column}"`);
}

export { notNullViolation } from '../../types/index.js';

/** A header name (or FORCE_* column) the table does not have. */
export function undefinedColumn(column: string, table: string): PaxdError {
  return sharedUndefinedColumn(column, { relation: table });
}

export function duplicateColumn(column: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.duplicate_column, `column "${column}" specified more than once`);
}

/** FORCE_NULL / FORCE_NOT_NULL of a column the input does not have (42P10). */
export function forceNotReferenced(option: string, column: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_column_reference, `${option} column "${column}" not referenced by COPY`);
}

/** HEADER MATCH (PostgreSQL 15). */
export function headerFieldCount(got: number, expected: number): PaxdError {
  return badFormat(`wrong number of fields in header line: got ${got}, expected ${expected}`);
}

export function headerMismatch(field: number, got: string | null, expected: string, nullString: string): PaxdError {
  return got === null
    ? badFormat(`column name mismatch in header line field ${field}: got null value ("${nullString}"), expected "${expected}"`)
    : badFormat(`column name mismatch in header line field ${field}: got "${got}", expected "${expected}"`);
}

/** PostgreSQL's limit on columns (MaxHeapAttributeNumber), which bounds a header line. */
export const MAX_COLUMNS = 1600;

export function tooManyColumns(got: number): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.too_many_columns, `tables can have at most ${MAX_COLUMNS} columns (the header line has ${got} fields)`);
}
