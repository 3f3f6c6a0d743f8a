/**
 * The binder: a parsed SELECT (./parse.ts) over paxd's catalog becomes a BoundSelect, with
 * names resolved to table fields and every expression typed by PostgreSQL's rules
 * (./types.ts): untyped literals ('2024-01-01') take the type of the other operand, mixed
 * numeric operands are cast to their common type, aggregates get their result types.
 *
 * Two row layouts exist. Before aggregation an expression reads the scan's columns (`columns`,
 * in slot order). In an aggregating query the targets, HAVING and ORDER BY read the group
 * keys followed by the aggregates: slot k < keys.length is key k, slot keys.length + j is
 * aggregate j. A column outside an aggregate must then be a GROUP BY key (42803).
 *
 * Supported (the rest is 0A000 naming the feature): SELECT [DISTINCT] [*, expressions] FROM
 * one table [WHERE] [GROUP BY expressions|positions] [HAVING] [ORDER BY … ASC|DESC NULLS
 * FIRST|LAST] [LIMIT n] [OFFSET m]; literals of integer, numeric, string, boolean and NULL,
 * typed literals and casts ('x'::date, CAST(… AS …)); + - * / %, unary minus, comparisons,
 * AND, OR, NOT, IS [NOT] NULL, [NOT] BETWEEN, [NOT] IN (list); CASE (searched and simple),
 * COALESCE, NULLIF, [NOT] LIKE/ILIKE [ESCAPE], ||, length, lower, upper, substring/substr,
 * position/strpos, trim/btrim/ltrim/rtrim, concat; count(*), count, sum, avg, min, max,
 * bool_and, bool_or, every, each with DISTINCT. `bindValue` and `bindCondition` bind the
 * expressions of other statements (./statements/).
 */
import type { Database, Table } from '../database.js';
import { type Field, type PgType, type Value, PaxdError, SQLSTATE, parseText, parseTypeName, pgDisplayName } from '../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, locationOf, str } from './parse.js';
import { type ArithOp, type CmpOp, type Expr, BOOL, E, exprKey } from './expr.js';
import { T, categoryOf, commonType, comparisonType, engineType, isFloat, isInteger, numericCommon } from './types.js';
import { checkEscape } from './exec/strings.js';
import {
  aggregateNotAllowed,
  datatypeMismatch,
  groupingError,
  notSupported,
  positionOf,
  SqlError,
  undefinedColumn,
  undefinedFunction,
  undefinedOperator,
  undefinedTable,
  ENGINE_SQLSTATE,
} from './errors.js';
import { castValue } from './exec/kernels.js';

export type AggName = 'count' | 'sum' | 'avg' | 'min' | 'max' | 'bool_and' | 'bool_or';

/** One aggregate call; `arg` reads the scan's columns, null for count(*). */
export interface AggCall {
  readonly fn: AggName;
  readonly arg: Expr | null;
  readonly type: PgType;
  /** count(DISTINCT x) and friends: each distinct non-NULL value counts once. */
  readonly distinct: boolean;
}

export interface OrderItem {
  readonly expr: Expr;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

export interface Target {
  readonly name: string;
  readonly expr: Expr;
}

export interface BoundSelect {
  readonly table: Table;
  /** The table's fields the query reads, in slot order. */
  readonly columns: readonly Field[];
  readonly where: Expr | null;
  /** Null when the query does not aggregate; else the keys (maybe none) and the aggregates. */
  readonly grouping: { readonly keys: readonly Expr[]; readonly aggs: readonly AggCall[] } | null;
  readonly having: Expr | null;
  readonly targets: readonly Target[];
  readonly orderBy: readonly OrderItem[];
  readonly limit: number | null;
  readonly offset: number;
  /** SELECT DISTINCT: duplicate output rows are removed before ORDER BY and LIMIT. */
  readonly distinct: boolean;
}

/** String literals have PostgreSQL's type `unknown` until context gives them one. */
const unknownLiterals = new WeakSet<Expr>();

const AGGREGATES = new Set<string>(['count', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'every']);

const ARITH: Record<string, ArithOp> = { '+': '+', '-': '-', '*': '*', '/': '/', '%': '%' };
const CMP: Record<string, CmpOp> = { '=': '=', '<>': '<>', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

export async function bindSelect(db: Database, stmt: AstNode): Promise<BoundSelect> {
  const kind = kindOf(stmt);
  if (kind !== 'SelectStmt') throw notSupported(statementName(kind));
  const s = fieldsOf(stmt);
  if (s.op !== undefined && s.op !== 'SETOP_NONE') throw notSupported(s.op === 'SETOP_UNION' ? 'UNION' : s.op === 'SETOP_INTERSECT' ? 'INTERSECT' : 'EXCEPT');
  if (s.valuesLists !== undefined) throw notSupported('VALUES');
  if (s.withClause !== undefined) throw notSupported('WITH');
  if (s.distinctClause !== undefined && (s.distinctClause as AstNode[]).some((d) => Object.keys(d).length > 0)) throw notSupported('SELECT DISTINCT ON');
  if (s.intoClause !== undefined) throw notSupported('SELECT INTO');
  if (s.lockingClause !== undefined) throw notSupported('FOR UPDATE/SHARE');
  if (s.windowClause !== undefined) throw notSupported('WINDOW');
  const from: AstNode[] = s.fromClause ?? [];
  if (from.length === 0) throw notSupported('SELECT without FROM');
  if (from.length > 1) throw notSupported('joins');
  const rv = from[0]!;
  if (kindOf(rv) !== 'RangeVar') throw notSupported(kindOf(rv) === 'JoinExpr' ? 'joins' : 'subqueries in FROM');
  const r = fieldsOf(rv);
  const table = await openTable(db, r.relname as string, r.location as number);
  const binder = new Binder(table, (r.alias?.aliasname as string | undefined) ?? table.name);
  return binder.select(s);
}

/**
 * A table-free expression (an item of INSERT's VALUES, a column DEFAULT): column references
 * fail with 42703, aggregates with 42803.
 */
export function bindValue(node: AstNode, clause: string): Expr {
  return new Binder(null, '').scalar(node, clause);
}

/** A condition over one table's columns (DELETE's WHERE); `columns` are the fields it reads, by slot. */
export function bindCondition(table: Table, node: AstNode, clause: string): { expr: Expr; columns: readonly Field[] } {
  const b = new Binder(table, table.name);
  const expr = b.conditionOf(node, clause);
  return { expr, columns: b.readColumns };
}

/** True for a string or NULL literal whose type is still PostgreSQL's `unknown`. */
export function isUnknownLiteral(e: Expr): boolean {
  return unknownLiterals.has(e);
}

export async function openTable(db: Database, name: string, location: number): Promise<Table> {
  try {
    return await db.table(name);
  } catch (e) {
    if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) throw undefinedTable(name, location);
    throw e;
  }
}

function statementName(kind: string): string {
  return kind.replace(/Stmt$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
}

type Mode = { kind: 'scalar'; clause: string } | { kind: 'grouped'; keys: Expr[]; keyNodes: string[]; aggs: AggCall[]; aggKeys: string[] };

class Binder {
  private readonly columns: Field[] = [];

  constructor(
    private readonly tableOrNull: Table | null,
    private readonly alias: string,
  ) {}

  private get table(): Table {
    if (this.tableOrNull === null) throw new Error('binder: a table-free expression reached a table');
    return this.tableOrNull;
  }

  get readColumns(): readonly Field[] {
    return this.columns;
  }

  scalar(node: AstNode, clause: string): Expr {
    return this.expr(node, { kind: 'scalar', clause });
  }

  conditionOf(node: AstNode, clause: string): Expr {
    return this.condition(node, { kind: 'scalar', clause }, clause);
  }

  select(s: AstFields): BoundSelect {
    const targetNodes: AstNode[] = s.targetList ?? [];
    const where = s.whereClause === undefined ? null : this.condition(s.whereClause, { kind: 'scalar', clause: 'WHERE' }, 'WHERE');
    const aggregating = s.groupClause !== undefined || s.havingClause !== undefined || targetNodes.some((t) => hasAggregate(t)) || (s.sortClause ?? []).some((o: AstNode) => hasAggregate(o));
    let mode: Mode = { kind: 'scalar', clause: 'SELECT' };
    let grouped: Extract<Mode, { kind: 'grouped' }> | null = null;
    if (aggregating) {
      grouped = { kind: 'grouped', keys: [], keyNodes: [], aggs: [], aggKeys: [] };
      for (const g of (s.groupClause ?? []) as AstNode[]) {
        const node = this.groupNode(g, targetNodes);
        const e = this.expr(node, { kind: 'scalar', clause: 'GROUP BY' });
        grouped.keys.push(e);
        grouped.keyNodes.push(exprKey(e));
      }
      mode = grouped;
    }
    const targets: Target[] = [];
    for (const t of targetNodes) {
      const rt = fieldsOf(t);
      const val: AstNode = rt.val;
      if (kindOf(val) === 'ColumnRef' && fieldsOf(val).fields.some((f: AstNode) => kindOf(f) === 'A_Star')) {
        for (const f of this.table.fields) targets.push({ name: f.name, expr: this.columnExpr(f, mode, fieldsOf(val).location) });
        continue;
      }
      targets.push({ name: (rt.name as string | undefined) ?? outputName(val), expr: resolveUnknown(this.expr(val, mode)) });
    }
    const having = s.havingClause === undefined ? null : this.condition(s.havingClause, mode, 'HAVING');
    const orderBy: OrderItem[] = ((s.sortClause ?? []) as AstNode[]).map((o) => this.orderItem(fieldsOf(o), targets, mode));
    if (s.limitOption === 'LIMIT_OPTION_WITH_TIES') throw notSupported('FETCH FIRST … WITH TIES');
    const distinct = s.distinctClause !== undefined;
    if (distinct) {
      const keys = new Set(targets.map((t) => exprKey(t.expr)));
      if (orderBy.some((o) => !keys.has(exprKey(o.expr))))
        throw new SqlError('invalid_input', ENGINE_SQLSTATE.invalid_column_reference, 'for SELECT DISTINCT, ORDER BY expressions must appear in select list', positionOf(locationOf(s.sortClause[0])));
    }
    return Object.freeze({
      table: this.table,
      columns: this.columns,
      where,
      grouping: grouped === null ? null : { keys: grouped.keys, aggs: grouped.aggs },
      having,
      targets,
      orderBy,
      limit: s.limitCount === undefined ? null : this.count(s.limitCount, 'LIMIT'),
      offset: s.limitOffset === undefined ? 0 : (this.count(s.limitOffset, 'OFFSET') ?? 0),
      distinct,
    });
  }

  /** GROUP BY 2 names the second target; a bare name is an input column (PostgreSQL prefers those). */
  private groupNode(g: AstNode, targets: AstNode[]): AstNode {
    if (kindOf(g) === 'A_Const' && fieldsOf(g).ival !== undefined) {
      const n = (fieldsOf(g).ival.ival as number | undefined) ?? 0;
      if (n < 1 || n > targets.length) throw new SqlError('invalid_input', ENGINE_SQLSTATE.invalid_column_reference, `GROUP BY position ${n} is not in select list`, positionOf(locationOf(g)));
      return fieldsOf(targets[n - 1]!).val;
    }
    if (kindOf(g) === 'GroupingSet') throw notSupported('GROUPING SETS, ROLLUP and CUBE');
    return g;
  }

  private orderItem(o: AstFields, targets: readonly Target[], mode: Mode): OrderItem {
    if (o.useOp !== undefined) throw notSupported('ORDER BY … USING');
    const desc = o.sortby_dir === 'SORTBY_DESC';
    const nullsFirst = o.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : o.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : desc;
    const node: AstNode = o.node;
    let expr: Expr | null = null;
    if (kindOf(node) === 'A_Const' && fieldsOf(node).ival !== undefined) {
      const n = (fieldsOf(node).ival.ival as number | undefined) ?? 0;
      if (n < 1 || n > targets.length) throw new SqlError('invalid_input', ENGINE_SQLSTATE.invalid_column_reference, `ORDER BY position ${n} is not in select list`, positionOf(locationOf(node)));
      expr = targets[n - 1]!.expr;
    } else if (kindOf(node) === 'ColumnRef' && fieldsOf(node).fields.length === 1 && kindOf(fieldsOf(node).fields[0]) === 'String') {
      // ORDER BY name: an output column's name first, then an input column (PostgreSQL's rule for SQL-92 compatibility)
      const name = str(fieldsOf(node).fields[0]);
      const matches = targets.filter((t) => t.name === name);
      if (matches.length > 1 && new Set(matches.map((m) => exprKey(m.expr))).size > 1)
        throw new SqlError('invalid_input', ENGINE_SQLSTATE.ambiguous_column, `ORDER BY "${name}" is ambiguous`, positionOf(locationOf(node)));
      if (matches.length > 0) expr = matches[0]!.expr;
    }
    expr ??= resolveUnknown(this.expr(node, mode));
    return { expr, desc, nullsFirst };
  }

  private count(node: AstNode, clause: 'LIMIT' | 'OFFSET'): number | null {
    const e = this.expr(node, { kind: 'scalar', clause });
    if (e.kind !== 'const') throw notSupported(`non-constant ${clause}`);
    if (e.value === null) return null;
    const v = Number(castValue(engineType(e.type), T.int8, e.value));
    if (v < 0)
      throw new SqlError(
        'invalid_input',
        clause === 'LIMIT' ? ENGINE_SQLSTATE.invalid_row_count_in_limit_clause : ENGINE_SQLSTATE.invalid_row_count_in_result_offset_clause,
        `${clause} must not be negative`,
      );
    return v;
  }

  private condition(node: AstNode, mode: Mode, clause: string): Expr {
    const e = this.coerce(this.expr(node, mode), BOOL, node);
    if (e.type.id !== 'bool') throw datatypeMismatch(`argument of ${clause} must be type boolean, not type ${pgDisplayName(e.type)}`, locationOf(node));
    return e;
  }

  private slotOf(f: Field): number {
    let i = this.columns.findIndex((c) => c.fieldId === f.fieldId);
    if (i < 0) {
      this.columns.push(f);
      i = this.columns.length - 1;
    }
    return i;
  }

  private columnExpr(f: Field, mode: Mode, location?: number): Expr {
    const e = E.column(this.slotOf(f), engineType(f.type), f.name);
    if (mode.kind === 'scalar') return e;
    const k = mode.keyNodes.indexOf(exprKey(e));
    if (k < 0) throw groupingError(this.alias, f.name, location);
    return E.column(k, e.type, f.name);
  }

  private expr(node: AstNode, mode: Mode): Expr {
    const kind = kindOf(node);
    const n = fieldsOf(node);
    // In a grouped query an expression equal to a GROUP BY key is that key.
    if (mode.kind === 'grouped' && mode.keys.length > 0 && kind !== 'ColumnRef' && kind !== 'A_Const' && !hasAggregate(node)) {
      const probe = safeBind(() => this.expr(node, { kind: 'scalar', clause: 'GROUP BY' }));
      if (probe !== null) {
        const k = mode.keyNodes.indexOf(exprKey(probe));
        if (k >= 0) return E.column(k, probe.type, outputName(node));
      }
    }
    switch (kind) {
      case 'ColumnRef':
        return this.columnRef(n, mode);
      case 'A_Const':
        return literal(n);
      case 'TypeCast': {
        const type = typeOf(n.typeName);
        return this.cast(this.expr(n.arg, mode), type, n.location);
      }
      case 'A_Expr':
        return this.aExpr(n, mode);
      case 'BoolExpr': {
        const args = (n.args as AstNode[]).map((a) => this.boolArg(a, mode, n.boolop === 'AND_EXPR' ? 'AND' : n.boolop === 'OR_EXPR' ? 'OR' : 'NOT'));
        if (n.boolop === 'AND_EXPR') return E.and(args);
        if (n.boolop === 'OR_EXPR') return E.or(args);
        return E.not(args[0]!);
      }
      case 'NullTest': {
        if (n.argisrow === true) throw notSupported('IS NULL on a row');
        return E.isNull(resolveUnknown(this.expr(n.arg, mode)), n.nulltesttype === 'IS_NOT_NULL');
      }
      case 'FuncCall':
        return this.funcCall(n, mode);
      case 'ParamRef':
        throw notSupported('parameters ($n)', n.location);
      case 'SubLink':
        throw notSupported('subqueries', n.location);
      case 'CaseExpr':
        return this.caseExpr(n, mode);
      case 'CoalesceExpr': {
        const args = this.unify((n.args as AstNode[]).map((a) => this.expr(a, mode)), 'COALESCE', n.location);
        return E.coalesce(args, args[0]!.type);
      }
      case 'BooleanTest':
        throw notSupported('IS [NOT] TRUE/FALSE/UNKNOWN', n.location);
      case 'SQLValueFunction':
        throw notSupported('CURRENT_DATE, CURRENT_TIMESTAMP and friends', n.location);
      case 'MinMaxExpr':
        throw notSupported('GREATEST and LEAST', n.location);
      default:
        throw notSupported(`${kind} expressions`, n.location);
    }
  }

  private boolArg(a: AstNode, mode: Mode, op: string): Expr {
    const e = this.coerce(this.expr(a, mode), BOOL, a);
    if (e.type.id !== 'bool') throw datatypeMismatch(`argument of ${op} must be type boolean, not type ${pgDisplayName(e.type)}`, locationOf(a));
    return e;
  }

  private columnRef(n: AstFields, mode: Mode): Expr {
    const parts = (n.fields as AstNode[]).map((f) => (kindOf(f) === 'A_Star' ? '*' : str(f)));
    if (parts.includes('*')) throw notSupported('* outside the select list', n.location);
    let name: string;
    if (parts.length === 1) name = parts[0]!;
    else if (parts.length === 2) {
      if (parts[0] !== this.alias)
        throw new SqlError('not_found', SQLSTATE.undefined_table, `missing FROM-clause entry for table "${parts[0]}"`, positionOf(n.location));
      name = parts[1]!;
    } else throw notSupported('qualified names with schema or database', n.location);
    if (this.tableOrNull === null) throw undefinedColumn(parts.join('.'), n.location);
    const f = this.table.fields.find((x) => x.name === name);
    if (f === undefined) throw undefinedColumn(parts.join('.'), n.location);
    return this.columnExpr(f, mode, n.location);
  }

  private aExpr(n: AstFields, mode: Mode): Expr {
    const op = n.name === undefined ? '' : (n.name as AstNode[]).map(str).join('.');
    switch (n.kind as string) {
      case 'AEXPR_OP': {
        if (n.lexpr === undefined) {
          const arg = this.expr(n.rexpr, mode);
          if (op === '-') return this.negate(arg, n.location);
          if (op === '+') return arg;
          throw notSupported(`prefix operator ${op}`, n.location);
        }
        const l = this.expr(n.lexpr, mode);
        const r = this.expr(n.rexpr, mode);
        if (ARITH[op] !== undefined) return this.arith(ARITH[op]!, l, r, n.location);
        if (CMP[op] !== undefined) return this.compare(CMP[op]!, l, r, n.location);
        if (op === '||') return this.textcat(l, r, n.location);
        if (op === '~~' || op === '!~~' || op === '~~*' || op === '!~~*') return this.like(l, n.rexpr, mode, op, n.location);
        throw notSupported(`operator ${op}`, n.location);
      }
      case 'AEXPR_IN': {
        const l = this.expr(n.lexpr, mode);
        const list: AstNode[] = Array.isArray(n.rexpr) ? n.rexpr : kindOf(n.rexpr) === 'List' ? fieldsOf(n.rexpr).items : [];
        if (list.length === 0) throw notSupported('IN (subquery)', n.location);
        const items = list.map((x) => this.expr(x, mode));
        if (op === '=') return E.or(items.map((x) => this.compare('=', l, x, n.location)));
        return E.and(items.map((x) => this.compare('<>', l, x, n.location)));
      }
      case 'AEXPR_BETWEEN':
      case 'AEXPR_NOT_BETWEEN': {
        const x = this.expr(n.lexpr, mode);
        const [lo, hi] = (fieldsOf(n.rexpr).items as AstNode[]).map((b) => this.expr(b, mode)) as [Expr, Expr];
        if (n.kind === 'AEXPR_BETWEEN') return E.and([this.compare('>=', x, lo, n.location), this.compare('<=', x, hi, n.location)]);
        return E.or([this.compare('<', x, lo, n.location), this.compare('>', x, hi, n.location)]);
      }
      case 'AEXPR_LIKE':
      case 'AEXPR_ILIKE':
        return this.like(this.expr(n.lexpr, mode), n.rexpr, mode, op, n.location);
      case 'AEXPR_NULLIF': {
        // NULLIF(a, b) is CASE WHEN a = b THEN NULL ELSE a END, typed as a.
        const a = resolveUnknown(this.expr(n.lexpr, mode));
        const b = this.expr(n.rexpr, mode);
        const a0 = isUnknownText(a) ? this.cast(a, T.text) : a;
        return E.case([{ cond: this.compare('=', a0, b, n.location), result: E.const(null, a0.type) }], a0, a0.type);
      }
      case 'AEXPR_DISTINCT':
      case 'AEXPR_NOT_DISTINCT':
        throw notSupported('IS [NOT] DISTINCT FROM', n.location);
      case 'AEXPR_OP_ANY':
      case 'AEXPR_OP_ALL':
        throw notSupported('ANY/ALL', n.location);
      case 'AEXPR_SIMILAR':
        throw notSupported('SIMILAR TO', n.location);
      default:
        throw notSupported(`${String(n.kind)} expressions`, n.location);
    }
  }

  private negate(arg: Expr, location: number): Expr {
    const a = unknownLiterals.has(arg) ? this.cast(arg, T.numeric, location) : arg;
    if (categoryOf(a.type) !== 'numeric') throw undefinedOperator(`- ${pgDisplayName(a.type)}`, location);
    if (a.kind === 'const') return E.const(a.value === null ? null : negateConst(a), a.type);
    return E.neg(a);
  }

  private arith(op: ArithOp, l0: Expr, r0: Expr, location: number): Expr {
    // An unknown literal takes the other side's type (both unknown: PostgreSQL cannot choose).
    const l = unknownLiterals.has(l0) && !unknownLiterals.has(r0) ? this.cast(l0, r0.type, location) : l0;
    const r = unknownLiterals.has(r0) && !unknownLiterals.has(l0) ? this.cast(r0, l.type, location) : r0;
    if (categoryOf(l.type) === 'datetime' || categoryOf(r.type) === 'datetime') throw notSupported('date/time arithmetic', location);
    if (categoryOf(l.type) !== 'numeric' || categoryOf(r.type) !== 'numeric' || unknownLiterals.has(l))
      throw undefinedOperator(`${pgDisplayName(l.type)} ${op} ${pgDisplayName(r.type)}`, location);
    const type = numericCommon(l.type, r.type);
    if (op === '%' && isFloat(type)) throw undefinedOperator(`${pgDisplayName(type)} % ${pgDisplayName(type)}`, location);
    if (type.id === 'numeric' && op === '/') throw notSupported('numeric division', location);
    if (type.id === 'numeric' && op === '%') throw notSupported('numeric modulo', location);
    return E.arith(op, this.cast(l, type, location), this.cast(r, type, location), type);
  }

  private compare(op: CmpOp, l0: Expr, r0: Expr, location: number): Expr {
    const l = unknownLiterals.has(l0) && !unknownLiterals.has(r0) ? this.cast(l0, r0.type, location) : l0;
    const r = unknownLiterals.has(r0) && !unknownLiterals.has(l0) ? this.cast(r0, l.type, location) : r0;
    const type = unknownLiterals.has(l) && unknownLiterals.has(r) ? T.text : comparisonType(l.type, r.type);
    if (type === null) throw undefinedOperator(`${pgDisplayName(l.type)} ${op} ${pgDisplayName(r.type)}`, location);
    if (type.id === 'jsonb' || type.id === 'timestamptz') throw notSupported(`comparison of ${pgDisplayName(type)}`, location);
    return E.cmp(op, this.cast(l, type, location), this.cast(r, type, location));
  }

  /** A cast to `type`, folded when the argument is a constant (so scans can use it). */
  private cast(e: Expr, type: PgType, location?: number): Expr {
    const to = engineType(type);
    if (e.type.id === to.id && !unknownLiterals.has(e) && to.id !== 'varchar' && to.id !== 'bpchar') return e;
    if (e.kind === 'const') {
      if (e.value === null) return E.const(null, to);
      if (unknownLiterals.has(e)) return E.const(parseText(type, e.value as string), engineTypeFor(type));
      return E.const(castValue(e.type, to, e.value), to);
    }
    checkCast(e.type, to, location);
    return E.cast(e, to);
  }

  private coerce(e: Expr, type: PgType, _node: AstNode): Expr {
    return unknownLiterals.has(e) ? this.cast(e, type) : e;
  }

  private funcCall(n: AstFields, mode: Mode): Expr {
    const names = (n.funcname as AstNode[]).map(str);
    const name0 = names[names.length - 1]!.toLowerCase();
    if (!AGGREGATES.has(name0) || n.over !== undefined) return this.scalarFunc(name0, n, mode);
    const name = name0 === 'every' ? 'bool_and' : name0;
    if (mode.kind === 'scalar') throw aggregateNotAllowed(mode.clause, n.location);
    if (n.agg_filter !== undefined) throw notSupported('FILTER in aggregates', n.location);
    if (n.agg_order !== undefined) throw notSupported('ORDER BY in aggregates', n.location);
    if (n.over !== undefined) throw notSupported('window functions', n.location);
    const args = (n.args ?? []) as AstNode[];
    let call: AggCall;
    if (n.agg_star === true) {
      if (name !== 'count') throw new SqlError('invalid_input', SQLSTATE.syntax_error, `${name}(*) specified, but ${name} is not an aggregate function`, positionOf(n.location));
      call = { fn: 'count', arg: null, type: T.int8, distinct: false };
    } else {
      if (args.length !== 1) throw undefinedFunction(`${name}() with ${args.length} arguments`, n.location);
      if (hasAggregate(args[0]!)) throw new SqlError('invalid_input', ENGINE_SQLSTATE.grouping_error, 'aggregate function calls cannot be nested', positionOf(n.location));
      const bound = this.expr(args[0]!, { kind: 'scalar', clause: 'aggregate arguments' });
      const arg = isUnknownText(bound) ? this.cast(bound, T.text) : bound;
      call = { fn: name as AggName, arg, type: aggregateType(name as AggName, arg.type, n.location), distinct: n.agg_distinct === true };
    }
    const key = JSON.stringify([call.fn, call.distinct, call.arg === null ? null : exprKey(call.arg)]);
    let j = mode.aggKeys.indexOf(key);
    if (j < 0) {
      mode.aggs.push(call);
      mode.aggKeys.push(key);
      j = mode.aggs.length - 1;
    }
    return E.column(mode.keys.length + j, call.type, name0);
  }

  /** A string operand: unknown literals become text, varchar and bpchar cast to text; else 42883 via `fail`. */
  private text(e: Expr, fail: () => SqlError): Expr {
    if (unknownLiterals.has(e)) return this.cast(e, T.text);
    if (categoryOf(e.type) !== 'string') throw fail();
    return e.type.id === 'text' ? e : this.cast(e, T.text);
  }

  /** An integer operand of a string function: int2/int4 (or an unknown literal) as int4. */
  private int4(e: Expr, fail: () => SqlError): Expr {
    if (unknownLiterals.has(e)) return this.cast(e, T.int4);
    if (e.type.id !== 'int2' && e.type.id !== 'int4') throw fail();
    return this.cast(e, T.int4);
  }

  /** Casts expressions to their common type (CASE branches, COALESCE arguments); 42804 when none. */
  private unify(exprs: Expr[], what: string, location?: number): Expr[] {
    const typed = exprs.filter((e) => !unknownLiterals.has(e)).map((e) => e.type);
    const type = commonType(typed);
    if (type === null) {
      const other = typed.find((t) => categoryOf(t) !== categoryOf(typed[0]!))!;
      throw datatypeMismatch(`${what} types ${pgDisplayName(typed[0]!)} and ${pgDisplayName(other)} cannot be matched`, location);
    }
    if (categoryOf(type) === 'datetime' && type.id === 'timestamptz' && typed.some((t) => t.id !== 'timestamptz')) throw notSupported(`${what} mixing timestamptz with other types`, location);
    return exprs.map((e) => this.cast(e, type, location));
  }

  private caseExpr(n: AstFields, mode: Mode): Expr {
    const subject = n.arg === undefined ? null : this.expr(n.arg, mode);
    const whens = (n.args as AstNode[]).map((w) => {
      const cw = fieldsOf(w);
      let cond: Expr;
      if (subject !== null) cond = this.compare('=', subject, this.expr(cw.expr, mode), cw.location);
      else {
        cond = this.coerce(this.expr(cw.expr, mode), BOOL, cw.expr);
        if (cond.type.id !== 'bool') throw datatypeMismatch(`argument of CASE/WHEN must be type boolean, not type ${pgDisplayName(cond.type)}`, locationOf(cw.expr));
      }
      return { cond, result: this.expr(cw.result, mode) };
    });
    const otherwise = n.defresult === undefined ? null : this.expr(n.defresult, mode);
    const results = this.unify([...whens.map((w) => w.result), ...(otherwise === null ? [] : [otherwise])], 'CASE', n.location);
    const type = results[0]!.type;
    return E.case(
      whens.map((w, i) => ({ cond: w.cond, result: results[i]! })),
      otherwise === null ? E.const(null, type) : results[results.length - 1]!,
      type,
    );
  }

  /** [NOT] LIKE / ILIKE, with the escape of `… ESCAPE c` (like_escape) or the default backslash. */
  private like(l0: Expr, rnode: AstNode, mode: Mode, op: string, location: number): Expr {
    let escape = '\\';
    let pnode = rnode;
    if (kindOf(rnode) === 'FuncCall' && (fieldsOf(rnode).funcname as AstNode[]).map(str).includes('like_escape')) {
      const [p, esc] = fieldsOf(rnode).args as AstNode[];
      const e = this.expr(esc!, mode);
      if (e.kind !== 'const') throw notSupported('a non-constant ESCAPE', location);
      if (e.value === null) return E.const(null, BOOL);
      escape = String(e.value);
      checkEscape(escape);
      pnode = p!;
    }
    const p0 = this.expr(pnode, mode);
    const fail = () => undefinedOperator(`${pgDisplayName(l0.type)} ${op} ${unknownLiterals.has(p0) ? 'unknown' : pgDisplayName(p0.type)}`, location);
    const l = this.text(l0, fail);
    const p = this.text(p0, fail);
    return E.like(l, p, escape, op.startsWith('!'), op.includes('*'));
  }

  /** `a || b`: text concatenation; one side may be a non-string type, printed by its output function. */
  private textcat(l: Expr, r: Expr, location: number): Expr {
    const fail = () => undefinedOperator(`${pgDisplayName(l.type)} || ${pgDisplayName(r.type)}`, location);
    const ls = unknownLiterals.has(l) || categoryOf(l.type) === 'string';
    const rs = unknownLiterals.has(r) || categoryOf(r.type) === 'string';
    if (!ls && !rs) throw fail();
    // textanycat is `$1 || $2::text`: the other side takes its cast to text (booltext's `true`).
    const side = (e: Expr, s: boolean) => (s ? this.text(e, fail) : categoryOf(e.type) === 'other' ? e : this.cast(e, T.text, location));
    const a = side(l, ls);
    const b = side(r, rs);
    if (categoryOf(a.type) === 'other' || categoryOf(b.type) === 'other') throw notSupported(`|| with ${pgDisplayName(categoryOf(a.type) === 'other' ? a.type : b.type)}`, location);
    return E.func('textcat', [a, b], T.text);
  }

  /** Scalar functions over text (PostgreSQL 15 docs 9.4); others are 0A000. */
  private scalarFunc(name: string, n: AstFields, mode: Mode): Expr {
    if (n.over !== undefined) throw notSupported('window functions', n.location);
    if (n.agg_star === true || n.agg_distinct === true || n.agg_order !== undefined || n.agg_filter !== undefined)
      throw new SqlError('invalid_input', SQLSTATE.syntax_error, `${name} is not an aggregate function`, positionOf(n.location));
    const args = ((n.args ?? []) as AstNode[]).map((a) => this.expr(a, mode));
    const sig = () => undefinedFunction(`${name}(${args.map((a) => (unknownLiterals.has(a) ? 'unknown' : pgDisplayName(a.type))).join(', ')})`, n.location);
    const arity = (lo: number, hi: number) => {
      if (args.length < lo || args.length > hi) throw sig();
    };
    switch (name) {
      case 'length':
      case 'char_length':
      case 'character_length':
        arity(1, 1);
        if (args[0]!.type.id === 'bpchar' && !unknownLiterals.has(args[0]!)) return E.func('length', [args[0]!], T.int4);
        return E.func('length', [this.text(args[0]!, sig)], T.int4);
      case 'lower':
      case 'upper':
        arity(1, 1);
        return E.func(name, [this.text(args[0]!, sig)], T.text);
      case 'substring':
      case 'substr': {
        arity(2, 3);
        if (unknownLiterals.has(args[1]!) || categoryOf(args[1]!.type) === 'string') throw notSupported('substring with a regular expression', n.location);
        return E.func('substring', [this.text(args[0]!, sig), ...args.slice(1).map((a) => this.int4(a, sig))], T.text);
      }
      case 'position':
      case 'strpos':
        arity(2, 2);
        return E.func('position', [this.text(args[0]!, sig), this.text(args[1]!, sig)], T.int4);
      case 'btrim':
      case 'ltrim':
      case 'rtrim':
        arity(1, 2);
        return E.func(name, args.map((a) => this.text(a, sig)), T.text);
      case 'concat':
        if (args.length === 0) throw sig();
        for (const a of args) if (categoryOf(a.type) === 'other' && !unknownLiterals.has(a)) throw notSupported(`concat of ${pgDisplayName(a.type)}`, n.location);
        return E.func('concat', args.map((a) => (unknownLiterals.has(a) ? this.cast(a, T.text) : a)), T.text);
      default:
        throw notSupported(`function ${name}()`, n.location);
    }
  }
}

/** Result types of aggregates (PostgreSQL 15 docs, table 9.58). */
export function aggregateType(fn: AggName, t: PgType, location?: number): PgType {
  const sig = () => undefinedFunction(`${fn}(${pgDisplayName(t)})`, location);
  switch (fn) {
    case 'count':
      return T.int8;
    case 'sum':
      if (t.id === 'int2' || t.id === 'int4') return T.int8;
      if (t.id === 'int8' || t.id === 'numeric') return T.numeric;
      if (isFloat(t)) return t;
      throw sig();
    case 'avg':
      if (isInteger(t) || t.id === 'numeric') return T.numeric;
      if (isFloat(t)) return T.float8;
      throw sig();
    case 'bool_and':
    case 'bool_or':
      if (t.id !== 'bool') throw sig();
      return T.bool;
    case 'min':
    case 'max':
      if (t.id === 'bool' || t.id === 'jsonb' || t.id === 'uuid') throw sig();
      if (t.id === 'timestamptz') throw notSupported(`${fn}(timestamptz)`, location);
      return t;
    default: {
      const never: never = fn;
      throw new Error(`unknown aggregate ${String(never)}`);
    }
  }
}

function checkCast(from: PgType, to: PgType, location?: number): void {
  const cf = categoryOf(from);
  const ct = categoryOf(to);
  const ok =
    cf === ct ||
    cf === 'string' ||
    ct === 'string' ||
    (from.id === 'date' && to.id === 'timestamp') ||
    (from.id === 'timestamp' && to.id === 'date');
  if (!ok || (cf === 'datetime' && ct === 'datetime' && (from.id === 'timestamptz' || to.id === 'timestamptz'))) throw notSupported(`cast from ${pgDisplayName(from)} to ${pgDisplayName(to)}`, location);
  if (isFloat(from) && to.id === 'numeric') throw notSupported(`cast from ${pgDisplayName(from)} to numeric`, location);
  if (ct === 'other' || cf === 'other') throw notSupported(`cast from ${pgDisplayName(from)} to ${pgDisplayName(to)}`, location);
}

function engineTypeFor(t: PgType): PgType {
  return engineType(t);
}

/** A string or NULL literal still of type unknown. */
function isUnknownText(e: Expr): boolean {
  return unknownLiterals.has(e);
}

/** An unknown literal left untyped at the top of an expression is text, as in PostgreSQL. */
function resolveUnknown(e: Expr): Expr {
  return e;
}

function negateConst(c: Extract<Expr, { kind: 'const' }>): Value {
  const v = c.value;
  if (typeof v === 'bigint') return -v;
  if (typeof v === 'number') return -v;
  if (typeof v === 'string') return v.startsWith('-') ? v.slice(1) : `-${v}`;
  return v;
}

function literal(n: AstFields): Expr {
  if (n.isnull === true) {
    const e = E.const(null, T.text);
    unknownLiterals.add(e);
    return e;
  }
  if (n.ival !== undefined) return E.const((n.ival.ival as number | undefined) ?? 0, T.int4);
  if (n.fval !== undefined) {
    // An integer too large for int4 is an int8 (if it fits) or a numeric, as in the scanner.
    const text = n.fval.fval as string;
    if (/^\d+$/.test(text)) {
      const b = BigInt(text);
      if (b <= 2n ** 63n - 1n) return E.const(b, T.int8);
    }
    return E.const(parseText(T.numeric, text), T.numeric);
  }
  if (n.boolval !== undefined) return E.const(n.boolval.boolval === true, T.bool);
  if (n.sval !== undefined) {
    const e = E.const((n.sval.sval as string | undefined) ?? '', T.text);
    unknownLiterals.add(e);
    return e;
  }
  if (n.bsval !== undefined) throw notSupported('bit-string literals', n.location);
  throw notSupported('this literal', n.location);
}

export function typeOf(typeName: AstFields): PgType {
  const tn = typeName as AstFields;
  if (tn.arrayBounds !== undefined) throw notSupported('array types', tn.location);
  const names = (tn.names as AstNode[]).map(str).filter((s) => s !== 'pg_catalog');
  const mods = ((tn.typmods ?? []) as AstNode[]).map((m) => {
    const c = fieldsOf(m);
    return (c.ival?.ival as number | undefined) ?? 0;
  });
  const name = names.join('.') + (mods.length > 0 ? `(${mods.join(',')})` : '');
  if (/^(interval|time|timetz)\b/.test(name)) throw notSupported(`type ${names.join('.')}`, tn.location);
  try {
    return parseTypeName(name);
  } catch (e) {
    if (e instanceof PaxdError) throw new SqlError('not_found', SQLSTATE.undefined_object, `type "${names.join('.')}" does not exist`, positionOf(tn.location));
    throw e;
  }
}

/** PostgreSQL's name for an unnamed output column (FigureColname). */
function outputName(node: AstNode): string {
  const kind = kindOf(node);
  const n = fieldsOf(node);
  switch (kind) {
    case 'ColumnRef': {
      const last = (n.fields as AstNode[])[n.fields.length - 1]!;
      return kindOf(last) === 'A_Star' ? '?column?' : str(last);
    }
    case 'FuncCall':
      return str((n.funcname as AstNode[])[n.funcname.length - 1]!);
    case 'CaseExpr':
      return 'case';
    case 'CoalesceExpr':
      return 'coalesce';
    case 'A_Expr':
      return n.kind === 'AEXPR_NULLIF' ? 'nullif' : '?column?';
    case 'TypeCast': {
      const inner = outputName(n.arg);
      if (inner !== '?column?') return inner;
      const names = (n.typeName.names as AstNode[]).map(str);
      return names[names.length - 1]!;
    }
    default:
      return '?column?';
  }
}

function hasAggregate(node: AstNode): boolean {
  let found = false;
  const visit = (x: unknown): void => {
    if (found || x === null || typeof x !== 'object') return;
    if (Array.isArray(x)) return x.forEach(visit);
    const o = x as Record<string, unknown>;
    const fc = o['FuncCall'] as AstFields | undefined;
    if (fc !== undefined) {
      const names = (fc.funcname as AstNode[]).map(str);
      if (AGGREGATES.has(names[names.length - 1]!.toLowerCase()) && fc.over === undefined) {
        found = true;
        return;
      }
    }
    if (o['SubLink'] !== undefined) return;
    for (const v of Object.values(o)) visit(v);
  };
  visit(node);
  return found;
}

function safeBind(f: () => Expr): Expr | null {
  try {
    return f();
  } catch (e) {
    if (e instanceof PaxdError) return null;
    throw e;
  }
}
