/**
 * The columns of the batch being built, written by index by the field parsers of ./fields.ts
 * (and by ../ndjson.ts), and the fast path of each.
 */
import { ColumnBuilder, type Field, Kind, arrayNotStorable, objectIdNotStorable, intervalNotStorable, kindOf, unreachable } from '../../types/index.js';

/**
 * How the field parsers treat a column: a fast path per stored kind (../../types/kind.ts), or
 * Generic (parseText) for the rest.
 */
export const enum FastPath {
  Int2,
  Int4,
  Int8,
  Float4,
  Float8,
  Bool,
  Decimal,
  NumericText,
  Date,
  Timestamp,
  Timestamptz,
  Text,
  Varchar,
  Bpchar,
  Generic,
}

/** The fast path of a column, from the one kind table (varchar/bpchar without a length are text). */
export function fastPathOf(f: Field): FastPath {
  const t = f.type;
  const k = kindOf(t);
  switch (k) {
    case Kind.Int2:
      return FastPath.Int2;
    case Kind.Int4:
      return FastPath.Int4;
    case Kind.Int8:
      return FastPath.Int8;
    case Kind.Float4:
      return FastPath.Float4;
    case Kind.Float8:
      return FastPath.Float8;
    case Kind.Bool:
      return FastPath.Bool;
    case Kind.Decimal128:
      return (t.scale ?? 0) >= 0 ? FastPath.Decimal : FastPath.Generic;
    case Kind.Date:
      return FastPath.Date;
    case Kind.Timestamp:
      return FastPath.Timestamp;
    case Kind.Timestamptz:
      return FastPath.Timestamptz;
    case Kind.Text:
      return FastPath.Text;
    case Kind.Varchar:
      return t.length === undefined ? FastPath.Text : FastPath.Varchar;
    case Kind.Bpchar:
      return t.length === undefined ? FastPath.Text : FastPath.Bpchar;
    case Kind.NumericText:
      return FastPath.NumericText;
    case Kind.Bytea:
    case Kind.Uuid:
    case Kind.Jsonb:
    case Kind.Json:
      return FastPath.Generic;
    case Kind.Interval:
      return intervalNotStorable('kindOf');
    case Kind.Oid:
    case Kind.Name:
    case Kind.Char:
    case Kind.Vector:
      return objectIdNotStorable('kindOf');
    case Kind.Array:
      return arrayNotStorable('kindOf');
    default:
      return unreachable(k);
  }
}

/**
 * A column of the batch a reader fills by index: the one column builder (../../types/builder.ts)
 * plus what the field parsers need to know about the column.
 */
export class ColumnBuffer extends ColumnBuilder {
  readonly field: Field;
  /** Index of the column in the table. */
  readonly index: number;
  /** 1-based position of the column in the input, or 0 when the input lacks it. */
  readonly inputPos: number;
  readonly kind: FastPath;

  constructor(field: Field, index: number, inputPos: number, capacity: number, dataHint: number) {
    super(field.type, capacity, dataHint);
    this.field = field;
    this.index = index;
    this.inputPos = inputPos;
    this.kind = fastPathOf(field);
  }
}
