/**
 * The batch interpreter of bound expressions (../expr.ts): each node runs one loop over the
 * batch and yields a column of values (NULL as null). Three-valued logic is PostgreSQL's
 * (Kleene): FALSE AND NULL is FALSE, TRUE OR NULL is TRUE, NOT NULL is NULL.
 *
 * Operators are strict: a NULL operand gives NULL without calling the kernel, so a division
 * by zero in a row whose other operand is NULL raises nothing, as in PostgreSQL.
 */
import type { Value } from '../../types/index.js';
import type { Expr } from '../expr.js';
import type { RowBatch } from './batch.js';
import { arith, castValue, compare, compareOp, negateValue } from './kernels.js';

export function evaluate(e: Expr, b: RowBatch): Value[] {
  const n = b.rows;
  switch (e.kind) {
    case 'column':
      return b.cols[e.slot]!;
    case 'const':
      return new Array<Value>(n).fill(e.value);
    case 'cast': {
      const a = evaluate(e.arg, b);
      const from = e.arg.type;
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = a[i] === null ? null : castValue(from, e.type, a[i]!);
      return out;
    }
    case 'arith': {
      const l = evaluate(e.left, b);
      const r = evaluate(e.right, b);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = l[i] === null || r[i] === null ? null : arith(e.type, e.op, l[i]!, r[i]!);
      return out;
    }
    case 'neg': {
      const a = evaluate(e.arg, b);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = a[i] === null ? null : negateValue(e.type, a[i]!);
      return out;
    }
    case 'cmp': {
      const l = evaluate(e.left, b);
      const r = evaluate(e.right, b);
      const t = e.left.type;
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = l[i] === null || r[i] === null ? null : compareOp(e.op, compare(t, l[i]!, r[i]!));
      return out;
    }
    case 'and':
    case 'or': {
      const decisive = e.kind === 'or'; // OR: a TRUE decides; AND: a FALSE does
      const out = new Array<Value>(n).fill(!decisive);
      for (const arg of e.args) {
        const a = evaluate(arg, b);
        for (let i = 0; i < n; i++) {
          if (out[i] === decisive) continue;
          if (a[i] === decisive) out[i] = decisive;
          else if (a[i] === null) out[i] = null;
        }
      }
      return out;
    }
    case 'not': {
      const a = evaluate(e.arg, b);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = a[i] === null ? null : !a[i];
      return out;
    }
    case 'isNull': {
      const a = evaluate(e.arg, b);
      const out = new Array<Value>(n);
      for (let i = 0; i < n; i++) out[i] = (a[i] === null) !== e.negated;
      return out;
    }
    default: {
      const never: never = e;
      throw new Error(`evaluate: unknown expression ${JSON.stringify(never)}`);
    }
  }
}
