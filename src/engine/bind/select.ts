/**
 * The Binder: a SELECT's clauses (targets, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT/OFFSET,
 * DISTINCT) over the scope of its FROM items, and the aggregates of a grouped query. Two row
 * layouts exist (see ../bind.ts). It extends the expression binder (./expressions.ts ←
 * ./operators.ts ← ./scope.ts).
 */
import type { Table } from '../../table/index.js';
import { type Field, type PgType, type Value, SQLSTATE, arrayOf, pgDisplayName, invalidRowCount } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, locationOf, str } from '../parse.js';
import { type Expr, BOOL, exprKey } from '../expr.js';
import { T, categoryOf, engineType } from '../types.js';
import { datatypeMismatch, notSupported, positionOf, SqlError, undefinedFunction } from '../errors.js';
import { castValue } from '../exec/kernels.js';
import type { AggCall, AggName, OrderItem, Target } from '../ir.js';
import { checkGroupable, checkSortable } from './catalog.js';
import { target, unknownLiterals, resolveUnknown } from './literals.js';
import { outputName, hasAggregate } from './ast.js';
import type { ColumnSource, Mode, SelectCore } from './scope.js';
import { ExprBinder } from './expressions.js';
import { WindowBinding, windowOnlyWithoutOver } from './window.js';
import { distinctOnOf } from './distinct-on.js';
import { type GroupingSets, finishGroupingSets, groupingFunc, groupingSetsOf } from './grouping-sets.js';
import { checkSrfPlacement } from './srf-placement.js';

export class Binder extends ExprBinder {
  /** Window function calls of the SELECT being bound (./window.ts). */
  protected readonly win = new WindowBinding({
    expr: (n, m) => this.expr(n, m),
    cast: (e, t, l) => this.cast(e, t, l),
    arith: (op, l, r, loc) => this.arith(op, l, r, loc),
    unify: (x, w, l) => this.unify(x, w, l),
    condition: (n, m, c) => this.condition(n, m, c),
    constArg: (n, t, w) => this.constArg(n, t, w),
  });

  /** GROUPING SETS / ROLLUP / CUBE of the SELECT being bound (./grouping-sets.ts). */
  protected groupingSets: GroupingSets | null = null;

  protected override expr(node: AstNode, mode: Mode): Expr {
    if (kindOf(node) === 'GroupingFunc') return groupingFunc(fieldsOf(node), mode, this.groupingSets, (n) => this.expr(n, { kind: 'scalar', clause: 'GROUPING' }));
    checkSrfPlacement(node, mode.kind === 'scalar' ? mode.clause : 'SELECT');
    if (kindOf(node) === 'FuncCall') {
      if (fieldsOf(node).over !== undefined) return this.win.call(fieldsOf(node), mode);
      const e = windowOnlyWithoutOver(fieldsOf(node));
      if (e !== null) throw e;
    }
    return super.expr(node, mode);
  }

  scalar(node: AstNode, clause: string): Expr {
    return this.expr(node, { kind: 'scalar', clause });
  }

  conditionOf(node: AstNode, clause: string): Expr {
    return this.condition(node, { kind: 'scalar', clause }, clause);
  }

  select(s: AstFields): SelectCore {
    const targetNodes: AstNode[] = s.targetList ?? [];
    const where = s.whereClause === undefined ? null : this.condition(s.whereClause, { kind: 'scalar', clause: 'WHERE' }, 'WHERE');
    const aggregating = s.groupClause !== undefined || s.havingClause !== undefined || targetNodes.some((t) => hasAggregate(t)) || (s.sortClause ?? []).some((o: AstNode) => hasAggregate(o)) || (s.windowClause ?? []).some((w: AstNode) => hasAggregate(w));
    let mode: Mode = { kind: 'scalar', clause: 'SELECT' };
    let grouped: Extract<Mode, { kind: 'grouped' }> | null = null;
    if (aggregating) {
      grouped = { kind: 'grouped', keys: [], keyNodes: [], aggs: [], aggKeys: [] };
      const sets = groupingSetsOf(s);
      for (const g of sets?.nodes ?? ((s.groupClause ?? []) as AstNode[])) {
        const node = this.groupNode(g, targetNodes);
        const e = this.expr(node, { kind: 'scalar', clause: 'GROUP BY' });
        checkGroupable(e.type, locationOf(node));
        grouped.keys.push(e);
        grouped.keyNodes.push(exprKey(e));
      }
      if (sets !== null) this.groupingSets = finishGroupingSets(sets, grouped);
      mode = grouped;
    }
    this.win.define(s.windowClause, mode);
    this.win.allowed = true;
    const targets: Target[] = [];
    for (const t of targetNodes) {
      const rt = fieldsOf(t);
      const val: AstNode = rt.val;
      if (kindOf(val) === 'ColumnRef' && fieldsOf(val).fields.some((f: AstNode) => kindOf(f) === 'A_Star')) {
        const parts = (fieldsOf(val).fields as AstNode[]).map((f) => (kindOf(f) === 'A_Star' ? '*' : str(f)));
        const location = fieldsOf(val).location as number;
        if (parts.length > 2) throw notSupported('qualified names with schema or database', location);
        if (this.leaves.length === 0 || this.leaves[0]!.source.kind === 'one-row')
          throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'SELECT * with no tables specified is not valid', positionOf(location));
        if (parts.length === 1) {
          const cols = this.tree === null ? this.leaves[0]!.fields.map((f, k) => ({ name: f.name, src: { kind: 'field', leaf: 0, k } as ColumnSource })) : this.columnsOf(this.tree);
          for (const c of cols) targets.push(target(c.name, this.sourceIn(c.src, c.name, mode, location)));
        } else {
          const i = this.leafNamed(parts[0]!, location);
          this.leaves[i]!.fields.forEach((f, k) => targets.push(target(f.name, this.columnExpr(i, k, mode, location))));
        }
        continue;
      }
      const e = resolveUnknown(this.expr(val, mode));
      targets.push(target((rt.name as string | undefined) ?? outputName(val), e));
    }
    this.win.allowed = false;
    const having = s.havingClause === undefined ? null : this.condition(s.havingClause, mode, 'HAVING');
    this.win.allowed = true;
    const orderBy: OrderItem[] = ((s.sortClause ?? []) as AstNode[]).map((o) => this.orderItem(fieldsOf(o), targets, mode));
    this.win.allowed = false;
    if (s.limitOption === 'LIMIT_OPTION_WITH_TIES') throw notSupported('FETCH FIRST … WITH TIES');
    const on = distinctOnOf(s, orderBy, (node) => this.orderItem({ node }, targets, mode));
    const distinct = s.distinctClause !== undefined && on === null;
    if (distinct) {
      for (const t of targets) checkGroupable(t.expr.type, undefined);
      const keys = new Set(targets.map((t) => exprKey(t.expr)));
      if (orderBy.some((o) => !keys.has(exprKey(o.expr))))
        throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, 'for SELECT DISTINCT, ORDER BY expressions must appear in select list', positionOf(locationOf(s.sortClause[0])));
    }
    const win = this.win.finish(grouped === null ? this.slots.length : grouped.keys.length + grouped.aggs.length);
    return Object.freeze({
      where,
      grouping: grouped === null ? null : { keys: grouped.keys, aggs: grouped.aggs, ...(this.groupingSets === null ? {} : { sets: this.groupingSets.sets }) },
      having,
      targets: win.clause === undefined ? targets : targets.map((t) => Object.freeze({ ...t, expr: win.place(t.expr) })),
      orderBy: win.clause === undefined ? (on?.orderBy ?? orderBy) : (on?.orderBy ?? orderBy).map((o) => ({ ...o, expr: win.place(o.expr) })),
      ...(win.clause === undefined ? {} : { windows: win.clause }),
      ...(on === null ? {} : { distinctOn: on.keys }),
      limit: s.limitCount === undefined ? null : this.count(s.limitCount, 'LIMIT'),
      offset: s.limitOffset === undefined ? 0 : (this.count(s.limitOffset, 'OFFSET') ?? 0),
      distinct,
      initPlans: Object.freeze([...this.initPlans]),
    });
  }

  /** GROUP BY 2 names the second target; a bare name is an input column (PostgreSQL prefers those). */
  protected groupNode(g: AstNode, targets: AstNode[]): AstNode {
    if (kindOf(g) === 'A_Const' && fieldsOf(g).ival !== undefined) {
      const n = (fieldsOf(g).ival.ival as number | undefined) ?? 0;
      if (n < 1 || n > targets.length) throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `GROUP BY position ${n} is not in select list`, positionOf(locationOf(g)));
      return fieldsOf(targets[n - 1]!).val;
    }
    if (kindOf(g) === 'GroupingSet') throw notSupported('GROUPING SETS, ROLLUP and CUBE');
    // A bare name no input column has may name an output column (SQL-92's rule, kept by PostgreSQL).
    if (kindOf(g) === 'ColumnRef' && fieldsOf(g).fields.length === 1 && kindOf(fieldsOf(g).fields[0]) === 'String') {
      const name = str(fieldsOf(g).fields[0]);
      if (!this.leaves.some((l) => l.fields.some((f) => f.name === name))) {
        const t = targets.find((x) => ((fieldsOf(x).name as string | undefined) ?? outputName(fieldsOf(x).val)) === name);
        if (t !== undefined) return fieldsOf(t).val;
      }
    }
    return g;
  }

  protected orderItem(o: AstFields, targets: readonly Target[], mode: Mode): OrderItem {
    if (o.useOp !== undefined) throw notSupported('ORDER BY … USING');
    const desc = o.sortby_dir === 'SORTBY_DESC';
    const nullsFirst = o.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : o.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : desc;
    const node: AstNode = o.node;
    let expr: Expr | null = null;
    if (kindOf(node) === 'A_Const' && fieldsOf(node).ival !== undefined) {
      const n = (fieldsOf(node).ival.ival as number | undefined) ?? 0;
      if (n < 1 || n > targets.length) throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `ORDER BY position ${n} is not in select list`, positionOf(locationOf(node)));
      expr = targets[n - 1]!.expr;
    } else if (kindOf(node) === 'ColumnRef' && fieldsOf(node).fields.length === 1 && kindOf(fieldsOf(node).fields[0]) === 'String') {
      // ORDER BY name: an output column's name first, then an input column (PostgreSQL's rule for SQL-92 compatibility)
      const name = str(fieldsOf(node).fields[0]);
      const matches = targets.filter((t) => t.name === name);
      if (matches.length > 1 && new Set(matches.map((m) => exprKey(m.expr))).size > 1)
        throw new SqlError('invalid_input', SQLSTATE.ambiguous_column, `ORDER BY "${name}" is ambiguous`, positionOf(locationOf(node)));
      if (matches.length > 0) expr = matches[0]!.expr;
    }
    expr ??= resolveUnknown(this.expr(node, mode));
    checkSortable(expr.type, locationOf(node));
    return { expr, desc, nullsFirst };
  }

  /** LIMIT/OFFSET of a UNION. */
  rowCount(node: AstNode, clause: 'LIMIT' | 'OFFSET'): number | null {
    return this.count(node, clause);
  }

  protected count(node: AstNode, clause: 'LIMIT' | 'OFFSET'): number | null {
    const e0 = this.expr(node, { kind: 'scalar', clause });
    const e = unknownLiterals.has(e0) ? this.cast(e0, T.int8) : e0;
    if (e.kind !== 'const') throw notSupported(`non-constant ${clause}`);
    if (e.value === null) return null;
    const v = Number(castValue(engineType(e.type), T.int8, e.value));
    if (v < 0) throw invalidRowCount(clause);
    return v;
  }

  protected override condition(node: AstNode, mode: Mode, clause: string): Expr {
    const e = this.coerce(this.expr(node, mode), BOOL, node);
    if (e.type.id !== 'bool') throw datatypeMismatch(`argument of ${clause} must be type boolean, not type ${pgDisplayName(e.type)}`, locationOf(node));
    return e;
  }

  /** An ORDER BY item inside an aggregate call: over the scan's columns. */
  protected override aggOrderItem(o: AstFields): OrderItem {
    if (o.useOp !== undefined) throw notSupported('ORDER BY … USING');
    const desc = o.sortby_dir === 'SORTBY_DESC';
    const nullsFirst = o.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : o.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : desc;
    const e = this.expr(o.node as AstNode, { kind: 'scalar', clause: 'aggregate arguments' });
    return { expr: unknownLiterals.has(e) ? this.cast(e, T.text) : e, desc, nullsFirst };
  }

  /** A constant aggregate argument (string_agg's delimiter, a fraction); 0A000 when it is not one. */
  protected constArg(node: AstNode, type: PgType, what: string): Value {
    const e0 = this.expr(node, { kind: 'scalar', clause: 'aggregate arguments' });
    const e = unknownLiterals.has(e0) || categoryOf(e0.type) === categoryOf(type) ? this.cast(e0, type) : e0;
    if (e.type.id !== engineType(type).id) throw undefinedFunction(`${what}`, locationOf(node));
    if (e.kind !== 'const') throw notSupported(`a non-constant ${what}`, locationOf(node));
    return e.value;
  }

  /** string_agg(text, delimiter [ORDER BY …]) and array_agg(x [ORDER BY …]). */
  protected override collectingAggregate(name: 'string_agg' | 'array_agg', args: AstNode[], order: OrderItem[] | undefined, n: AstFields): AggCall {
    if (n.agg_star === true) throw new SqlError('invalid_input', SQLSTATE.syntax_error, `${name}(*) specified, but ${name} is not an aggregate function`, positionOf(n.location));
    if (args.length !== (name === 'string_agg' ? 2 : 1)) throw undefinedFunction(`${name} with ${args.length} arguments`, n.location);
    if (hasAggregate(args[0]!)) throw new SqlError('invalid_input', SQLSTATE.grouping_error, 'aggregate function calls cannot be nested', positionOf(n.location));
    const bound = this.expr(args[0]!, { kind: 'scalar', clause: 'aggregate arguments' });
    const distinct = n.agg_distinct === true;
    if (name === 'array_agg') {
      const arg = unknownLiterals.has(bound) ? this.cast(bound, T.text) : bound;
      if (distinct && order?.some((o) => exprKey(o.expr) !== exprKey(arg)))
        throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, 'in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list', positionOf(n.location));
      // x's type's array type (its value is array_out's text, src/types/array.ts).
      if (arg.type.id === 'array') throw notSupported('array_agg of arrays', n.location);
      return { fn: 'array_agg', arg, type: arrayOf(arg.type), distinct, ...(order === undefined ? {} : { order }) };
    }
    const sig = () => undefinedFunction(`string_agg(${unknownLiterals.has(bound) ? 'unknown' : pgDisplayName(bound.type)}, text)`, n.location);
    if (bound.type.id === 'bytea' && !unknownLiterals.has(bound)) throw notSupported('string_agg(bytea, bytea)', n.location);
    const arg = this.text(bound, sig);
    const param = this.constArg(args[1]!, T.text, 'string_agg delimiter');
    if (distinct && order?.some((o) => exprKey(o.expr) !== exprKey(arg)))
      throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, 'in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list', positionOf(n.location));
    return { fn: 'string_agg', arg, type: T.text, distinct, param, ...(order === undefined ? {} : { order }) };
  }

  /** percentile_cont / percentile_disc (fraction) WITHIN GROUP (ORDER BY x). */
  protected override orderedSetAggregate(name: AggName, args: AstNode[], order: OrderItem[], n: AstFields): AggCall {
    if (args.length !== 1 || order.length !== 1) throw undefinedFunction(`${name} with ${args.length} direct and ${order.length} ordered arguments`, n.location);
    if (kindOf(args[0]!) === 'A_ArrayExpr' || (kindOf(args[0]!) === 'TypeCast' && fieldsOf(args[0]!).typeName.arrayBounds !== undefined)) throw notSupported(`${name} of an array of fractions`, n.location);
    const param = this.constArg(args[0]!, T.float8, `${name} fraction`);
    const x = order[0]!;
    let arg = x.expr;
    if (name === 'percentile_cont') {
      if (arg.type.id === 'interval') throw notSupported('percentile_cont of interval', n.location);
      if (categoryOf(arg.type) !== 'numeric') throw undefinedFunction(`percentile_cont(double precision ORDER BY ${pgDisplayName(arg.type)})`, n.location);
      arg = this.cast(arg, T.float8);
    }
    return { fn: name, arg, type: name === 'percentile_cont' ? T.float8 : arg.type, distinct: false, param, order: [{ ...x, expr: arg }] };
  }
}

/**
 * A table-free expression (an item of INSERT's VALUES, a column DEFAULT): column references
 * fail with 42703, aggregates with 42803.
 */
export function bindValue(node: AstNode, clause: string): Expr {
  return new Binder([]).scalar(node, clause);
}

/** A condition over one table's columns (DELETE's WHERE); `columns` are the fields it reads, by slot. */
export function bindCondition(table: Table, node: AstNode, clause: string): { expr: Expr; columns: readonly Field[] } {
  const b = new Binder([{ alias: table.name, fields: table.fields, source: { kind: 'table', table } }]);
  const expr = b.conditionOf(node, clause);
  return { expr, columns: b.readColumns };
}
