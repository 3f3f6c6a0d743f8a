/**
 * Predicate pushdown: the scan predicate (../scan/predicate.ts) equal to a bound condition over
 * bare columns and constants, which zone maps can skip groups by (DESIGN.md "Only monotone
 * predicates are evaluated against bounds"). Used by the single-table planner (./plan.ts), the
 * join planner's leaf scans (./join-plan.ts) and DELETE/UPDATE (./statements/positions.ts).
 */
import type { Predicate } from '../scan/index.js';
import { P } from '../scan/index.js';
import type { Field, Value } from '../types/index.js';
import { type Expr, E } from './expr.js';
import { isCtidField } from './ctid.js';

const FLIP = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;

/** The scan predicate equal to `e`, or null when `e` is not over bare columns and constants. */
export function toPredicate(e: Expr, columns: readonly Field[]): Predicate | null {
  switch (e.kind) {
    case 'cmp': {
      let col = e.left;
      let val = e.right;
      let op = e.op;
      if (col.kind !== 'column' && col.kind !== 'cast') {
        [col, val] = [val, col];
        op = FLIP[op];
      }
      // bpchar(n) compared as bpchar: the binder's cast to the column's own type changes nothing.
      if (col.kind === 'cast' && col.arg.kind === 'column' && col.type.id === 'bpchar' && col.arg.type.id === 'bpchar' && (col.type.length === undefined || col.type.length === col.arg.type.length)) col = col.arg;
      if (col.kind === 'cast' && val.kind === 'const') {
        // An integer column widened for the comparison (int2 = int4 literal): push when the
        // constant fits the column's type, in that type; otherwise it stays residual.
        const narrowed = narrowInteger(col, val.value);
        if (narrowed === null) return null;
        [col, val] = narrowed;
      }
      if (col.kind !== 'column' || val.kind !== 'const') return null;
      const f = columns[col.slot]!;
      if (isCtidField(f)) return null;
      // Only where the constant is already of the stored type: numeric (text in the engine,
      // rounded by the scan's parser) stays residual for now. bpchar compares as the scan
      // does it (trailing spaces insignificant, statistics without them).
      if (f.type.id !== col.type.id || f.type.id === 'numeric' || val.type.id !== f.type.id) return null;
      if (val.value === null) return null;
      return { kind: 'cmp', column: f.name, op, value: val.value };
    }
    case 'inSet': {
      // `col IN (subquery)` once its InitPlan ran: a membership test the scan compiles, whose
      // values also let zone maps skip groups. With a NULL among the values a non-member is
      // NULL, not false, which NOT would get wrong: that one stays residual.
      if (e.hasNull) return null;
      let col = e.arg;
      let values = e.values;
      if (col.kind === 'cast' && col.arg.kind === 'column' && INT_RANGE[col.arg.type.id] !== undefined) {
        // An integer column widened to the values' type: values outside the column's range match no row.
        const c = col;
        values = values.flatMap((v) => {
          const n = narrowInteger(c, v);
          return n === null ? [] : [(n[1] as Extract<Expr, { kind: 'const' }>).value];
        });
        col = col.arg;
      }
      if (col.kind !== 'column') return null;
      const f = columns[col.slot]!;
      if (isCtidField(f) || f.type.id !== col.type.id || f.type.id === 'numeric') return null;
      return values.length === 0 ? null : P.in(f.name, values);
    }
    case 'column':
      // A bare boolean column is `col = true` (NULL is not true either way).
      return e.type.id === 'bool' && columns[e.slot]!.type.id === 'bool' ? { kind: 'cmp', column: columns[e.slot]!.name, op: '=', value: true } : null;
    case 'isNull':
      if (e.arg.kind !== 'column') return null;
      return e.negated ? P.isNotNull(columns[e.arg.slot]!.name) : P.isNull(columns[e.arg.slot]!.name);
    case 'and':
    case 'or': {
      const args = e.args.map((a) => toPredicate(a, columns));
      if (args.some((a) => a === null)) return null;
      return e.kind === 'and' ? P.all(args as Predicate[]) : P.any(args as Predicate[]);
    }
    case 'not': {
      const a = toPredicate(e.arg, columns);
      return a === null ? null : P.not(a);
    }
    default:
      return null;
  }
}

const INT_RANGE: Record<string, readonly [bigint, bigint]> = {
  int2: [-32768n, 32767n],
  int4: [-2147483648n, 2147483647n],
  int8: [-(2n ** 63n), 2n ** 63n - 1n],
};

/** `cast(intcol) op const` as `intcol op const'` when both are integers and the constant fits. */
function narrowInteger(c: Extract<Expr, { kind: 'cast' }>, v: Value): [Expr, Expr] | null {
  const col = c.arg;
  if (col.kind !== 'column' || INT_RANGE[col.type.id] === undefined || INT_RANGE[c.type.id] === undefined || v === null) return null;
  if (typeof v !== 'number' && typeof v !== 'bigint') return null;
  const b = BigInt(v);
  const [lo, hi] = INT_RANGE[col.type.id]!;
  if (b < lo || b > hi) return null;
  return [col, E.const(col.type.id === 'int8' ? b : Number(b), col.type)];
}
