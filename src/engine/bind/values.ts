/**
 * VALUES lists (PostgreSQL 15 docs 7.7, "VALUES Lists"): every row the same length (42601), each
 * column's type the common type of its items as UNION resolves them (docs 10.5: unknown
 * literals take it, a column of only unknown literals is text; 42804 when none exists), and
 * a typmod (numeric(5,2)) kept when every item has the same one. Columns are column1, column2,
 * …. A VALUES with ORDER BY, LIMIT or OFFSET binds as PostgreSQL plans it:
 *
 *   VALUES (2, 'b'), (1, 'a') ORDER BY 1
 *   -- SELECT * FROM (VALUES (2, 'b'), (1, 'a')) AS "*VALUES*" ORDER BY 1
 */
import { type PgType, type Value, SQLSTATE, pgDisplayName } from '../../types/index.js';
import { type AstFields, type AstNode, type ConstList, constsOf, locationOf, valuesListNodes } from '../parse.js';
import { type Expr, E } from '../expr.js';
import { notSupported, positionOf, SqlError } from '../errors.js';
import type { BoundValues, QueryField } from '../ir.js';
import { declaredTypes, unknownLiterals } from './literals.js';
import { Binder } from './select.js';
import { classConverter, constClasses } from './const-list.js';

/** The FROM alias a sorted or limited VALUES is read under (PostgreSQL's name for a VALUES RTE). */
export const VALUES_ALIAS = '*VALUES*';

/** `s` as `SELECT * FROM (VALUES …) "*VALUES*" …` when it has ORDER BY, LIMIT or OFFSET; else null. */
export function valuesAsSelect(s: AstFields): AstFields | null {
  if (s.sortClause === undefined && s.limitCount === undefined && s.limitOffset === undefined && s.lockingClause === undefined) return null;
  const { sortClause, limitCount, limitOffset, limitOption, lockingClause, valuesLists, ...rest } = s;
  return {
    ...(sortClause !== undefined ? { sortClause } : {}),
    ...(limitCount !== undefined ? { limitCount } : {}),
    ...(limitOffset !== undefined ? { limitOffset } : {}),
    ...(lockingClause !== undefined ? { lockingClause } : {}),
    limitOption,
    op: 'SETOP_NONE',
    targetList: [{ ResTarget: { val: { ColumnRef: { fields: [{ A_Star: {} }], location: -1 } }, location: -1 } }],
    fromClause: [{ RangeSubselect: { subquery: { SelectStmt: { ...rest, valuesLists, limitOption: 'LIMIT_OPTION_DEFAULT' } }, alias: { aliasname: VALUES_ALIAS } } }],
  };
}

/** A bare VALUES list: its rows bound, cast to the columns' common types. */
export function bindValues(s: AstFields): BoundValues {
  const consts = constsOf(s.valuesLists);
  const folded = consts === null ? null : constValues(consts);
  if (folded !== null) return folded;
  const lists = valuesListNodes(s.valuesLists).map((l) => (l['List']?.items ?? []) as AstNode[]);
  const width = lists[0]!.length;
  for (const l of lists)
    if (l.length !== width) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'VALUES lists must all be the same length', positionOf(locationOf(l[0] ?? { x: {} })));
  const b = new ValuesBinder();
  const rows: Expr[][] = lists.map((l) => l.map((item) => b.item(item)));
  const fields: QueryField[] = [];
  for (let c = 0; c < width; c++) {
    const column = b.column(rows.map((r) => r[c]!), locationOf(lists[0]![c]!));
    rows.forEach((r, i) => (r[c] = column[i]!));
    // The items' types with their typmods: the column keeps a typmod only when all agree.
    const full = rows.map((r) => declaredTypes.get(r[c]!) ?? r[c]!.type);
    const same = full.every((t) => pgDisplayName(t) === pgDisplayName(full[0]!));
    const type = column[0]!.type;
    const plain: PgType = same || type.length === undefined ? type : withoutLength(type);
    fields.push(Object.freeze({ name: `column${c + 1}`, type: plain, ...(same && full[0] !== type ? { declared: full[0]! } : {}) }));
  }
  return Object.freeze({ kind: 'values', rows: Object.freeze(rows.map((r) => Object.freeze(r))), fields: Object.freeze(fields) });
}

/**
 * A VALUES of constants only, from the parser's column form (../parse.ts ConstList): per
 * column, the first constant of each class bound and unified by the binder as below, every
 * other one converted alike (./const-list.ts), so 100,000 rows are not 100,000 nodes bound
 * one by one (issue #18). Null for the binder to take the nodes.
 */
function constValues(c: ConstList): BoundValues | null {
  const width = c.width ?? 1;
  const count = c.kinds.length / width;
  const b = new ValuesBinder();
  const rows: Expr[][] = Array.from({ length: count }, () => new Array<Expr>(width));
  const fields: QueryField[] = [];
  for (let col = 0; col < width; col++) {
    const { values, classes, reps } = constClasses(c, col, width);
    const outs = b.column(reps, c.locations[col]);
    const type = outs[0]!.type;
    const convert: ((v: Value) => Value)[] = [];
    for (const [k, rep] of reps.entries()) {
      const f = outs[k]!.type === type || outs[k]!.type.id === type.id ? classConverter(rep, outs[k]!, null) : null;
      if (f === null || declaredTypes.has(outs[k]!)) return null;
      convert.push(f);
    }
    for (let i = 0; i < count; i++) {
      const v = values[i]!;
      rows[i]![col] = E.const(v === null ? null : convert[classes[i]!]!(v), type);
    }
    fields.push(Object.freeze({ name: `column${col + 1}`, type }));
  }
  return Object.freeze({ kind: 'values', rows: Object.freeze(rows.map((r) => Object.freeze(r))), fields: Object.freeze(fields) });
}

/** Binds VALUES items (no FROM: a column reference is 42703) and unifies a column's types. */
class ValuesBinder extends Binder {
  constructor() {
    super([]);
  }

  item(node: AstNode): Expr {
    if (node['SetToDefault'] !== undefined) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'DEFAULT is not allowed in this context', positionOf(locationOf(node)));
    if (node['SubLink'] !== undefined) throw notSupported('subqueries in VALUES', locationOf(node));
    return this.scalar(node, 'VALUES');
  }

  column(items0: Expr[], location: number | undefined): Expr[] {
    // An unknown literal takes the column's type without a typmod ('yyyy' beside 'x'::varchar(3)
    // stays 'yyyy', as PostgreSQL's select_common_typmod gives -1): the typed items lose theirs first.
    const unknown = items0.some((e) => unknownLiterals.has(e));
    const items = unknown ? items0.map((e) => (!unknownLiterals.has(e) && e.type.length !== undefined ? this.cast(e, withoutLength(e.type), location) : e)) : items0;
    const out = this.unify(items, 'VALUES', location);
    for (const [i, e] of out.entries()) {
      const d = declaredTypes.get(items[i]!);
      if (d !== undefined && e !== items[i] && e.type.id === d.id) declaredTypes.set(e, d);
    }
    return out;
  }
}

function withoutLength(t: PgType): PgType {
  const { length: _length, ...rest } = t;
  return rest;
}
