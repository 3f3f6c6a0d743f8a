/**
 * Grouping keys: a value as a string equal for values PostgreSQL's equality calls equal. Used by
 * the hash aggregate, DISTINCT, UNION and the membership tests of IN (subquery) (./eval.ts).
 */
import type { PgType, Value } from '../../types/index.js';
import { jsonbEqualityKey } from './jsonb.js';

/**
 * How a type's values are made equal for grouping, DISTINCT and set operations where their
 * text differs: numeric by value (1.50 = 1.5), jsonb by value (./jsonb.ts: 1.0 = 1 inside
 * documents), bpchar without its trailing spaces (bpchareq: 'ab ' = 'ab'); null for every other type.
 */
export type KeyNorm = 'numeric' | 'jsonb' | 'bpchar' | null;

export function keyNorm(t: PgType): KeyNorm {
  return t.id === 'numeric' || t.id === 'jsonb' || t.id === 'bpchar' ? t.id : null;
}

/**
 * A value's grouping key. Numbers compare as PostgreSQL's equality does: -0 is 0; numeric
 * text drops trailing fractional zeros (1.50 = 1.5).
 */
export function keyText(v: Value, norm: KeyNorm): string {
  if (v === null) return 'N';
  if (typeof v === 'bigint') return `b${v}`;
  if (typeof v === 'number') return `n${v === 0 ? 0 : v}`;
  if (norm === 'numeric' && typeof v === 'string' && /^-?\d+\.\d*0$/.test(v)) return `s${v.replace(/\.?0+$/, '')}`;
  if (norm === 'jsonb' && typeof v === 'string') return `s${jsonbEqualityKey(v)}`;
  if (norm === 'bpchar' && typeof v === 'string') return `s${v.replace(/ +$/, '')}`;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'string') return `s${v}`;
  return `x${Buffer.from(v).toString('hex')}`;
}
