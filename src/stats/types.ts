/**
 * In-memory statistics of one column over a zone, group, file or table.
 *
 * min/max are Values (see src/types/column.ts) in the column's stored representation:
 * number for int2/int4/float/date, bigint for int8/timestamps and for decimal128 (unscaled),
 * string for text-like types, Uint8Array for bytea/uuid, boolean for bool. NaN is never a
 * min or max (it is counted in `nans`; PostgreSQL orders NaN above every number).
 *
 * sum: bigint for integer types and decimal128 (unscaled, the column's scale), number for
 * floats, string (exact decimal text) for unconstrained numeric; null when the type has no sum
 * or every value is NULL.
 */
import type { Value } from '../types/index.js';

export interface ColumnStats {
  rows: number;
  nulls: number;
  nans: number;
  min: Value;
  max: Value;
  minExact: boolean;
  maxExact: boolean;
  sum: bigint | number | string | null;
}
