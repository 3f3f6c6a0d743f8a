/**
 * The columns of the batch being built, written by index by the field parsers of ./fields.ts
 * (and by ../ndjson.ts), and the fast-path kind of each.
 */
import { ColumnBuilder, type Field, intervalNotStorable, unreachable } from '../../types/index.js';

/** How the fast paths treat a column (anything without a fast path is Generic: parseText). */
export const enum Kind {
  Int2,
  Int4,
  Int8,
  Float4,
  Float8,
  Bool,
  Decimal,
  Date,
  Timestamp,
  Timestamptz,
  Text,
  Varchar,
  Bpchar,
  Generic,
}

export function kindOf(f: Field): Kind {
  const t = f.type;
  switch (t.id) {
    case 'int2':
      return Kind.Int2;
    case 'int4':
      return Kind.Int4;
    case 'int8':
      return Kind.Int8;
    case 'float4':
      return Kind.Float4;
    case 'float8':
      return Kind.Float8;
    case 'bool':
      return Kind.Bool;
    case 'numeric':
      return t.precision !== undefined && (t.scale ?? 0) >= 0 ? Kind.Decimal : Kind.Generic;
    case 'date':
      return Kind.Date;
    case 'timestamp':
      return Kind.Timestamp;
    case 'timestamptz':
      return Kind.Timestamptz;
    case 'text':
      return Kind.Text;
    case 'varchar':
      return t.length === undefined ? Kind.Text : Kind.Varchar;
    case 'bpchar':
      return t.length === undefined ? Kind.Text : Kind.Bpchar;
    case 'bytea':
    case 'uuid':
    case 'jsonb':
      return Kind.Generic;
    case 'interval':
      return intervalNotStorable('kindOf');
    default:
      return unreachable(t.id);
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
  readonly kind: Kind;

  constructor(field: Field, index: number, inputPos: number, capacity: number, dataHint: number) {
    super(field.type, capacity, dataHint);
    this.field = field;
    this.index = index;
    this.inputPos = inputPos;
    this.kind = kindOf(field);
  }
}
