/**
 * GROUPING SETS, ROLLUP and CUBE, and GROUPING() (PostgreSQL 15 docs 7.2.4, 9.21 table 9.62).
 * A GROUP BY clause expands into a list of grouping sets, as PostgreSQL's expand_grouping_sets
 * does: each item is a list of sets, and the items' lists multiply (the concatenation of
 * every choice):
 *
 *   ROLLUP (a, b)              (a, b), (a), ()
 *   CUBE (a, b)                (a, b), (a), (b), ()
 *   GROUPING SETS (a, (b, c), ())   (a), (b, c), ()
 *   a, ROLLUP (b)              (a, b), (a)
 *
 * The query's grouping keys are every distinct expression of the sets, then one int4 key, the
 * set's number, which the aggregate (../exec/aggregate/grouping-sets.ts) fills per set; a key
 * not in a set is NULL in that set's rows. GROUPING(x, y) is a CASE over the set's number:
 * bit 1 for each argument not in the set, the first argument the highest bit.
 */
import { SQLSTATE } from '../../types/index.js';
import { type AstNode, fieldsOf, kindOf, type AstFields } from '../parse.js';
import { type Expr, E, exprKey } from '../expr.js';
import { T } from '../types.js';
import { SqlError, notSupported, positionOf } from '../errors.js';
import type { Mode } from './scope.js';

/** The expanded GROUP BY: its distinct item nodes, and each set as indices into them. */
export interface GroupingSetsAst {
  readonly nodes: readonly AstNode[];
  readonly sets: readonly (readonly number[])[];
}

/** The grouping sets of a bound query: sets of key indices, and the set-number key's index. */
export interface GroupingSets {
  readonly sets: readonly (readonly number[])[];
  readonly gid: number;
}

/** The key that marks the set-number column in keyNodes: no expression's key. */
const GID_KEY = '\u0000grouping set';

/** PostgreSQL's limit on CUBE's elements (parse_agg.c: 4096 sets). */
const CUBE_LIMIT = 12;

type NodeSet = AstNode[];

/** An element of ROLLUP/CUBE or of a SETS list written `(a, b)`: its expressions. */
function elementOf(n: AstNode): NodeSet {
  return kindOf(n) === 'RowExpr' ? [...((fieldsOf(n).args ?? []) as AstNode[])] : [n];
}

function expand(n: AstNode): NodeSet[] {
  if (kindOf(n) !== 'GroupingSet') return [[n]];
  const g = fieldsOf(n);
  const content = (g.content ?? []) as AstNode[];
  switch (g.kind as string) {
    case 'GROUPING_SET_EMPTY':
      return [[]];
    case 'GROUPING_SET_SIMPLE':
      return [content.flatMap(elementOf)];
    case 'GROUPING_SET_ROLLUP': {
      const els = content.map(elementOf);
      return els.map((_e, i) => els.slice(0, els.length - i).flat()).concat([[]]);
    }
    case 'GROUPING_SET_CUBE': {
      const els = content.map(elementOf);
      if (els.length > CUBE_LIMIT) throw new SqlError('invalid_input', SQLSTATE.too_many_columns, `CUBE is limited to ${CUBE_LIMIT} elements`, positionOf(g.location as number));
      const out: NodeSet[] = [];
      for (let mask = (1 << els.length) - 1; mask >= 0; mask--) out.push(els.flatMap((e, i) => ((mask >> (els.length - 1 - i)) & 1 ? e : [])));
      return out;
    }
    case 'GROUPING_SET_SETS':
      return content.flatMap((c) => (kindOf(c) === 'RowExpr' ? [elementOf(c)] : expand(c)));
    default:
      throw notSupported(`grouping set ${String(g.kind)}`, g.location as number);
  }
}

/** The grouping sets of a GROUP BY clause, or null when it has none (a plain GROUP BY). */
export function groupingSetsOf(s: AstFields): GroupingSetsAst | null {
  const items = (s.groupClause ?? []) as AstNode[];
  if (!items.some((g) => kindOf(g) === 'GroupingSet')) return null;
  if (s.groupDistinct === true) throw notSupported('GROUP BY DISTINCT');
  let sets: NodeSet[] = [[]];
  for (const item of items) {
    const choices = expand(item);
    const next: NodeSet[] = [];
    for (const a of sets) for (const b of choices) next.push([...a, ...b]);
    sets = next;
    if (sets.length > 4096) throw new SqlError('invalid_input', SQLSTATE.statement_too_complex, 'too many grouping sets present (maximum 4096)');
  }
  const nodes: AstNode[] = [];
  const index = (n: AstNode) => {
    let i = nodes.indexOf(n);
    if (i < 0) i = nodes.push(n) - 1;
    return i;
  };
  return { nodes, sets: sets.map((set) => [...new Set(set.map(index))]) };
}

/**
 * After the Binder bound `ast.nodes` as the first keys of `mode` (in order): the keys made
 * distinct, the set-number key added, and the sets over the distinct keys.
 */
export function finishGroupingSets(ast: GroupingSetsAst, mode: Extract<Mode, { kind: 'grouped' }>): GroupingSets {
  const bound = mode.keys.splice(0, ast.nodes.length);
  mode.keyNodes.splice(0, ast.nodes.length);
  const map = bound.map((e) => {
    const k = exprKey(e);
    let i = mode.keyNodes.indexOf(k);
    if (i < 0) {
      mode.keys.push(e);
      mode.keyNodes.push(k);
      i = mode.keys.length - 1;
    }
    return i;
  });
  const gid = mode.keys.length;
  mode.keys.push(E.const(0, T.int4));
  mode.keyNodes.push(GID_KEY);
  return { sets: ast.sets.map((set) => [...new Set(set.map((n) => map[n]!))].sort((a, b) => a - b)), gid };
}

/** GROUPING(args): which of its arguments the current row's grouping set leaves out, as int4 bits. */
export function groupingFunc(n: AstFields, mode: Mode, sets: GroupingSets | null, bind: (node: AstNode) => Expr): Expr {
  const args = (n.args ?? []) as AstNode[];
  if (args.length > 31) throw new SqlError('invalid_input', SQLSTATE.too_many_arguments, 'GROUPING must have fewer than 32 arguments', positionOf(n.location as number));
  if (mode.kind !== 'grouped') throw new SqlError('invalid_input', SQLSTATE.grouping_error, `grouping operations are not allowed in ${mode.clause}`, positionOf(n.location as number));
  const keys = args.map((a) => {
    const i = mode.keyNodes.indexOf(exprKey(bind(a)));
    if (i < 0) throw new SqlError('invalid_input', SQLSTATE.grouping_error, 'arguments to GROUPING must be grouping expressions of the associated query level', positionOf(fieldsOf(a).location as number));
    return i;
  });
  if (sets === null) return E.const(0, T.int4);
  const bits = (set: readonly number[]) => keys.reduce((v, k) => v * 2 + (set.includes(k) ? 0 : 1), 0);
  const gid = E.column(sets.gid, T.int4, 'grouping');
  return E.case(
    sets.sets.map((set, s) => ({ cond: E.cmp('=', gid, E.const(s, T.int4)), result: E.const(bits(set), T.int4) })),
    E.const(0, T.int4),
    T.int4,
  );
}
