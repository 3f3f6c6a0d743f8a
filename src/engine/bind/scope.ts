/**
 * Name scope: the FROM tree before and after its ON conditions are bound, the slots of the
 * query's row layout (a field of a leaf each), column references resolved as PostgreSQL
 * resolves them (42702 ambiguous, 42703 undefined, 42P01 for an unknown qualifier), JOIN …
 * USING / NATURAL merges and the ctid and whole-row references. The first layer of the Binder
 * (./select.ts), whose later layers bind operators (./operators.ts) and expressions
 * (./expressions.ts).
 */
import { type Field, SQLSTATE, undefinedColumn as sharedUndefinedColumn } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { type CmpOp, type Expr, BOOL, E, exprKey } from '../expr.js';
import { T, engineType } from '../types.js';
import { groupingError, notSupported, positionOf, SqlError, undefinedColumn } from '../errors.js';
import { type AggCall, type BoundQuery, type SelectClauses, type FromNode, type InitPlan, type JoinType, type Leaf, type SlotColumn, leavesOf } from '../ir.js';
import { CTID_FIELD, isCtidField } from '../ctid.js';
import { ctidExprs } from './catalog.js';
import { declaredTypes } from './literals.js';
import { lateralColumn, leafArgs } from './lateral-scope.js';

/** The FROM tree before its ON conditions are bound (they need every leaf). */
export type RawFrom =
  | { kind: 'leaf'; leaf: number }
  | {
      kind: 'join';
      type: JoinType;
      left: RawFrom;
      right: RawFrom;
      on: AstNode | null;
      using: string[] | null;
      natural: boolean;
      location?: number;
    };

/** Where an output column of a FROM item comes from: a leaf's field, or a USING/NATURAL merge. */
export type ColumnSource = { readonly kind: 'field'; readonly leaf: number; readonly k: number } | { readonly kind: 'merge'; readonly m: number };

/** A column JOIN … USING merges (PostgreSQL 15 docs 7.2.1.1): the left one, the right one (RIGHT JOIN) or COALESCE of both (FULL). */
export interface Merge {
  readonly name: string;
  readonly left: ColumnSource;
  readonly right: ColumnSource;
  readonly type: JoinType;
}

export const sourceKey = (c: ColumnSource) => (c.kind === 'field' ? `f${c.leaf}.${c.k}` : `m${c.m}`);

export const JOIN_TYPES: Record<string, JoinType> = { JOIN_INNER: 'inner', JOIN_LEFT: 'left', JOIN_RIGHT: 'right', JOIN_FULL: 'full' };

/** The leaves on the nullable side of an outer join in a FROM tree. */
export function nullableLeaves(raw: RawFrom, out = new Set<number>(), nullable = false): Set<number> {
  if (raw.kind === 'leaf') {
    if (nullable) out.add(raw.leaf);
    return out;
  }
  nullableLeaves(raw.left, out, nullable || raw.type === 'right' || raw.type === 'full');
  nullableLeaves(raw.right, out, nullable || raw.type === 'left' || raw.type === 'full');
  return out;
}

export type Mode = { kind: 'scalar'; clause: string } | { kind: 'grouped'; keys: Expr[]; keyNodes: string[]; aggs: AggCall[]; aggKeys: string[] };

export type SelectCore = SelectClauses;

export function ambiguousColumn(name: string, location?: number): SqlError {
  return new SqlError('invalid_input', SQLSTATE.ambiguous_column, `column reference "${name}" is ambiguous`, positionOf(location));
}

export abstract class ScopeBinder {
  protected readonly slots: SlotColumn[] = [];
  /** While binding a JOIN's ON: the leaves it may reference (PostgreSQL's scoping). */
  protected visible: ReadonlySet<number> | null = null;
  /** The FROM tree (relational queries), its USING merges and the columns they hide. */
  protected tree: RawFrom | null = null;
  protected readonly merges: Merge[] = [];
  protected readonly hidden = new Set<string>();
  protected readonly expansion = new Map<RawFrom, { name: string; src: ColumnSource }[]>();

  constructor(
    protected readonly leaves: readonly Leaf[],
    /** The query's uncorrelated subqueries in expressions, bound, by SubLink (see bindSubLinks). */
    protected readonly subQueries: ReadonlyMap<AstFields, BoundQuery> | null = null,
    /** Those that are whole WHERE conjuncts. */
    protected readonly conjunctLinks: ReadonlySet<AstFields> = new Set(),
  ) {}

  /** The InitPlans of the query being bound, in the order its expressions name them. */
  readonly initPlans: InitPlan[] = [];

  protected abstract compare(op: CmpOp, l0: Expr, r0: Expr, location: number): Expr;
  protected abstract condition(node: AstNode, mode: Mode, clause: string): Expr;
  protected abstract expr(node: AstNode, mode: Mode): Expr;
  protected abstract unify(exprs: Expr[], what: string, location?: number): Expr[];

  /**
   * `(r.*)::text IS [NOT] NULL` (postgres_fdw's whole-row references): a row of a table not on
   * the nullable side of an outer join always exists, so the test is constant.
   */
  protected wholeRowTest(n: AstFields, mode: Mode): Expr | null {
    let arg = n.arg as AstNode;
    if (kindOf(arg) === 'TypeCast') arg = fieldsOf(arg).arg as AstNode;
    else return null;
    if (kindOf(arg) !== 'ColumnRef') return null;
    const parts = fieldsOf(arg).fields as AstNode[];
    if (parts.length !== 2 || kindOf(parts[1]!) !== 'A_Star') return null;
    const leaf = this.leafNamed(str(parts[0]!), fieldsOf(arg).location as number);
    const negated = n.nulltesttype === 'IS_NOT_NULL';
    if (this.tree === null || !nullableLeaves(this.tree).has(leaf)) return E.const(negated, BOOL);
    // On the nullable side of an outer join the row is NULL exactly when it was null-extended,
    // which a NOT NULL column of the table shows.
    const k = this.leaves[leaf]!.fields.findIndex((f) => f.notNull);
    if (k < 0 || this.leaves[leaf]!.source.kind !== 'table') throw notSupported('whole-row references to the nullable side of an outer join', fieldsOf(arg).location as number);
    return E.isNull(this.columnExpr(leaf, k, mode), negated);
  }

  /** The ctid column of a table leaf (a pseudo field read by slot; see ./ctid.ts). */
  protected ctidExpr(leaf: number, mode: Mode, location?: number): Expr {
    if (this.leaves.length !== 1 || this.leaves[leaf]!.source.kind !== 'table') throw notSupported('ctid in joins and subqueries', location);
    let i = this.slots.findIndex((c) => c.leaf === leaf && isCtidField(c.field));
    if (i < 0) {
      this.slots.push(Object.freeze({ leaf, field: CTID_FIELD }));
      i = this.slots.length - 1;
    }
    const e = E.column(i, T.text, 'ctid');
    ctidExprs.add(e);
    if (mode.kind === 'scalar') return e;
    const key = mode.keyNodes.indexOf(exprKey(e));
    if (key < 0) throw groupingError(this.leaves[leaf]!.alias, 'ctid', location);
    const k = E.column(key, T.text, 'ctid');
    ctidExprs.add(k);
    return k;
  }

  /** The stored fields the slots read (a single table's columns, by slot). */
  get readColumns(): readonly Field[] {
    return this.slots.map((c) => c.field);
  }

  get slotColumns(): readonly SlotColumn[] {
    return this.slots;
  }

  /** Binds a FROM tree (see fromNode) and keeps it for `*`. */
  bindFrom(raw: RawFrom): FromNode {
    this.tree = raw;
    return this.fromNode(raw);
  }

  /** The output columns of a FROM item, in PostgreSQL's `*` order (merged USING columns first). */
  protected columnsOf(raw: RawFrom): { name: string; src: ColumnSource }[] {
    if (raw.kind === 'leaf' && this.leaves[raw.leaf]!.hidden === true) return [];
    if (raw.kind === 'leaf') return this.leaves[raw.leaf]!.fields.map((f, k) => ({ name: f.name, src: { kind: 'field', leaf: raw.leaf, k } }));
    if (raw.type === 'semi' || raw.type === 'anti') return this.columnsOf(raw.left);
    return this.expansion.get(raw) ?? [...this.columnsOf(raw.left), ...this.columnsOf(raw.right)];
  }

  /** USING (a, b) / NATURAL: the merged columns and the equality of each pair. */
  protected usingCondition(raw: Extract<RawFrom, { kind: 'join' }>): Expr | null {
    const lcols = this.columnsOf(raw.left);
    const rcols = this.columnsOf(raw.right);
    const names = raw.natural ? [...new Set(lcols.map((c) => c.name))].filter((n) => rcols.some((c) => c.name === n)) : raw.using!;
    const used = new Set<string>();
    const merged: { name: string; src: ColumnSource }[] = [];
    const conds: Expr[] = [];
    for (const name of names) {
      const side = (cols: { name: string; src: ColumnSource }[], which: string) => {
        const hits = cols.filter((c) => c.name === name);
        if (hits.length > 1) throw new SqlError('invalid_input', SQLSTATE.ambiguous_column, `common column name "${name}" appears more than once in ${which} table`, positionOf(raw.location));
        if (hits.length === 0) throw new SqlError('not_found', SQLSTATE.undefined_column, `column "${name}" specified in USING clause does not exist in ${which} table`, positionOf(raw.location));
        return hits[0]!.src;
      };
      const l = side(lcols, 'left');
      const r = side(rcols, 'right');
      used.add(sourceKey(l));
      used.add(sourceKey(r));
      this.hidden.add(sourceKey(l));
      this.hidden.add(sourceKey(r));
      this.merges.push({ name, left: l, right: r, type: raw.type });
      merged.push({ name, src: { kind: 'merge', m: this.merges.length - 1 } });
      conds.push(this.compare('=', this.sourceExpr(l), this.sourceExpr(r), raw.location ?? -1));
    }
    this.expansion.set(raw, [...merged, ...lcols.filter((c) => !used.has(sourceKey(c.src))), ...rcols.filter((c) => !used.has(sourceKey(c.src)))]);
    return conds.length === 0 ? null : E.and(conds);
  }

  /** A FROM column's expression in the pre-aggregation layout. */
  protected sourceExpr(src: ColumnSource): Expr {
    if (src.kind === 'field') return this.columnExpr(src.leaf, src.k, { kind: 'scalar', clause: 'FROM' });
    const m = this.merges[src.m]!;
    // The merged column has the two columns' common type (PostgreSQL's buildMergedJoinVar).
    const args = this.unify([this.sourceExpr(m.left), this.sourceExpr(m.right)], 'JOIN/USING');
    if (m.type === 'right') return args[1]!;
    if (m.type !== 'full') return args[0]!;
    return E.coalesce(args, args[0]!.type);
  }

  /** A FROM column in `mode`: in a grouped query it must be (part of) a GROUP BY key. */
  protected sourceIn(src: ColumnSource, name: string, mode: Mode, location?: number): Expr {
    if (src.kind === 'field') return this.columnExpr(src.leaf, src.k, mode, location);
    const e = this.sourceExpr(src);
    if (mode.kind === 'scalar') return e;
    const k = mode.keyNodes.indexOf(exprKey(e));
    if (k < 0) throw new SqlError('invalid_input', SQLSTATE.grouping_error, `column "${name}" must appear in the GROUP BY clause or be used in an aggregate function`, positionOf(location));
    return E.column(k, e.type, name);
  }

  /** Binds the ON conditions of a FROM tree, each seeing only the leaves below its join. */
  protected fromNode(raw: RawFrom): FromNode {
    if (raw.kind === 'leaf') {
      const args = leafArgs(this.leaves[raw.leaf]!, (node) => this.leftOf(raw.leaf, node), (l, k) => this.columnExpr(l, k, { kind: 'scalar', clause: 'FROM' }));
      return Object.freeze(args === null ? { kind: 'leaf', leaf: raw.leaf } : { kind: 'leaf', leaf: raw.leaf, args });
    }
    const left = this.fromNode(raw.left);
    const right = this.fromNode(raw.right);
    if (raw.using !== null || raw.natural) {
      const on = this.usingCondition(raw);
      return Object.freeze({ kind: 'join', type: on === null && raw.type === 'inner' ? 'cross' : raw.type, left, right, on });
    }
    let on: Expr | null = null;
    if (raw.on !== null) {
      const saved = this.visible;
      this.visible = new Set([...leavesOf(left), ...leavesOf(right)]);
      try {
        on = this.condition(raw.on, { kind: 'scalar', clause: 'JOIN conditions' }, 'JOIN/ON');
      } finally {
        this.visible = saved;
      }
    }
    return Object.freeze({ kind: 'join', type: raw.type, left, right, on });
  }

  /** A FROM item's function call, seeing the leaves to its left only (./function-from.ts). */
  private leftOf(leaf: number, node: AstNode): Expr {
    const saved = this.visible;
    this.visible = new Set(this.leaves.map((_l, i) => i).filter((i) => i < leaf));
    try {
      return this.expr(node, { kind: 'scalar', clause: 'FROM' });
    } finally {
      this.visible = saved;
    }
  }

  /** The slot of a leaf's k-th field; slots are numbered in order of first reference. */
  protected slotOf(leaf: number, k: number): number {
    const l = this.leaves[leaf]!;
    const field = l.source.kind === 'table' ? l.source.table.fields[k]! : l.fields[k]!;
    let i = this.slots.findIndex((c) => c.leaf === leaf && c.field.fieldId === field.fieldId);
    if (i < 0) {
      this.slots.push(Object.freeze({ leaf, field }));
      i = this.slots.length - 1;
    }
    return i;
  }

  protected columnExpr(leaf: number, k: number, mode: Mode, location?: number): Expr {
    const f = this.leaves[leaf]!.fields[k]!;
    const e = E.column(this.slotOf(leaf, k), engineType(f.type), f.name);
    const declare = (x: Expr) => {
      if (x.type !== f.type) declaredTypes.set(x, f.type);
      return x;
    };
    if (mode.kind === 'scalar') return declare(e);
    const key = mode.keyNodes.indexOf(exprKey(e));
    if (key < 0) throw groupingError(this.leaves[leaf]!.alias, f.name, location);
    return declare(E.column(key, e.type, f.name));
  }

  protected isVisible(leaf: number): boolean {
    return this.visible === null || this.visible.has(leaf);
  }

  /** The leaf a qualifier names; 42P01 as PostgreSQL words it when none does. */
  protected leafNamed(name: string, location: number | undefined): number {
    const i = this.leaves.findIndex((l, k) => l.alias === name && this.isVisible(k));
    if (i >= 0) return i;
    if (this.leaves.some((l) => l.alias === name))
      throw new SqlError('not_found', SQLSTATE.undefined_table, `invalid reference to FROM-clause entry for table "${name}"`, positionOf(location));
    throw new SqlError('not_found', SQLSTATE.undefined_table, `missing FROM-clause entry for table "${name}"`, positionOf(location));
  }

  protected columnRef(n: AstFields, mode: Mode): Expr {
    const parts = (n.fields as AstNode[]).map((f) => (kindOf(f) === 'A_Star' ? '*' : str(f)));
    if (parts.includes('*')) throw notSupported('* outside the select list', n.location);
    if (parts.length > 2) throw notSupported('qualified names with schema or database', n.location);
    if (parts.length === 2) {
      const outer = this.leaves.some((l) => l.alias === parts[0]) ? null : lateralColumn(parts);
      if (outer !== null) return outer;
      const leaf = this.leafNamed(parts[0]!, n.location);
      const ks = this.leaves[leaf]!.fields.flatMap((f, k) => (f.name === parts[1] ? [k] : []));
      if (ks.length === 0 && parts[1] === 'ctid' && this.leaves[leaf]!.source.kind === 'table') return this.ctidExpr(leaf, mode, n.location);
      if (ks.length === 0) throw sharedUndefinedColumn(parts[1]!, { qualifier: parts[0]!, position: positionOf(n.location) });
      if (ks.length > 1) throw ambiguousColumn(parts.join('.'), n.location);
      return this.columnExpr(leaf, ks[0]!, mode, n.location);
    }
    const name = parts[0]!;
    // Columns a USING merge hides are reached through the merge (one column, not two).
    const hits: ColumnSource[] = [];
    this.leaves.forEach((l, i) => {
      if (this.isVisible(i) && l.hidden !== true) l.fields.forEach((f, k) => f.name === name && !this.hidden.has(`f${i}.${k}`) && hits.push({ kind: 'field', leaf: i, k }));
    });
    this.merges.forEach((m, i) => m.name === name && !this.hidden.has(`m${i}`) && hits.push({ kind: 'merge', m: i }));
    if (hits.length === 0 && name === 'ctid') {
      const tables = this.leaves.flatMap((l, i) => (this.isVisible(i) && l.hidden !== true && l.source.kind === 'table' ? [i] : []));
      if (tables.length > 1) throw ambiguousColumn(name, n.location);
      if (tables.length === 1) return this.ctidExpr(tables[0]!, mode, n.location);
    }
    // A one-column function's alias names its row, which is its value (`FROM jsonb_array_elements(j) e` → e).
    const fnRow = hits.length === 0 ? this.leaves.findIndex((l, i) => this.isVisible(i) && l.hidden !== true && l.alias === name && l.source.kind === 'function' && l.fields.length === 1) : -1;
    if (fnRow >= 0) return this.columnExpr(fnRow, 0, mode, n.location);
    const outer = hits.length === 0 ? lateralColumn(parts) : null;
    if (outer !== null) return outer;
    if (hits.length === 0) throw undefinedColumn(name, n.location);
    if (hits.length > 1) throw ambiguousColumn(name, n.location);
    return this.sourceIn(hits[0]!, name, mode, n.location);
  }
}
