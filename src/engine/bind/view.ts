/**
 * A view in FROM (CREATE VIEW, ../statements/view.ts): its stored query is parsed and bound
 * again at each use, as a subquery leaf under the view's name (or alias), so it reads the
 * tables as they are at the statement's snapshot — PostgreSQL's rewriter does the same with
 * the stored parse tree. The view's columns are the ones fixed at CREATE: names from the
 * catalog, and the query must still produce the same leading columns (a column added since
 * to a table that `SELECT *` read is not part of the view, as in PostgreSQL; anything that
 * moved a column fails rather than answer from the wrong one).
 *
 *   CREATE VIEW big AS SELECT o_orderkey, o_totalprice FROM orders WHERE o_totalprice > 1000;
 *   SELECT count(*) FROM big b JOIN lineitem l ON l.l_orderkey = b.o_orderkey;
 *   -- binds as: FROM (SELECT o_orderkey, o_totalprice FROM orders WHERE …) AS b JOIN lineitem l …
 *
 * The view's query does not see the CTEs of the query that uses it (a WITH names nothing
 * inside a view), and a view that reaches itself through other views is 42P17.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database, Table } from '../../table/index.js';
import { type Field, PaxdError, SQLSTATE, pgDisplayName } from '../../types/index.js';
import { type AstFields, type AstNode, kindOf, parseSql } from '../parse.js';
import { SqlError, positionOf } from '../errors.js';
import { type BoundQuery, type Leaf, queryFields } from '../ir.js';
import { engineType } from '../types.js';
import { withoutCtes } from './cte.js';
import type { RawFrom } from './scope.js';

type BindQuery = (db: Database, stmt: AstNode) => Promise<BoundQuery>;
type AddLeaf = (leaves: Leaf[], alias: AstFields | undefined, name: string, fields: readonly Field[], source: Leaf['source'], location: number | undefined) => RawFrom;

/** True when the table opened for a FROM name is a view. */
export function isViewTable(table: Table): boolean {
  return table.snapshot.view !== undefined;
}

/** The views being expanded around the current bind, innermost last. */
const expanding = new AsyncLocalStorage<readonly string[]>();

/** True while the query of a view in FROM is being bound (what it opens is the view's dependency, not its user's). */
export function insideView(): boolean {
  return (expanding.getStore()?.length ?? 0) > 0;
}

/** The leaf of view `table` named by RangeVar `n`. */
export async function viewLeaf(db: Database, table: Table, n: AstFields, leaves: Leaf[], bindQuery: BindQuery, addLeaf: AddLeaf): Promise<RawFrom> {
  const name = table.name;
  const outer = expanding.getStore() ?? [];
  if (outer.includes(name)) throw new SqlError('invalid_input', SQLSTATE.invalid_object_definition, `infinite recursion detected in rules for relation "${name}"`, positionOf(n.location as number));
  const view = table.snapshot.view!;
  const ast = await viewQuery(name, view.query);
  const query = await expanding.run([...outer, name], () => withoutCtes(() => bindQuery(db, ast)));
  const got = queryFields(query);
  const want = table.fields;
  const made = view.columns;
  if (got.length < want.length) throw viewChanged(name, `its query now has ${got.length} columns, the view ${want.length}`);
  want.forEach((f, i) => {
    const g = got[i]!;
    if (g.name !== made[i] || engineType(g.type).id !== engineType(f.type).id)
      throw viewChanged(name, `column ${i + 1} of its query is now ${g.name} ${pgDisplayName(g.type)}, was ${made[i]} ${pgDisplayName(f.type)}`);
  });
  // The declared type (numeric(10,2)) keeps its typmod for the columns that read it, as a CTE's does.
  const fields: Field[] = want.map((f, i) => ({ name: f.name, type: got[i]!.declared ?? got[i]!.type, notNull: false, fieldId: i }));
  const source = got.length === want.length ? query : await expanding.run([...outer, name], () => withoutCtes(() => bindQuery(db, prefixOf(ast, want.length, got.length))));
  return addLeaf(leaves, n.alias, name, fields, { kind: 'subquery', query: source, view: table }, n.location as number);
}

/**
 * `SELECT c1 … cn FROM (q) AS view(c1 … cm)`: the first `n` of `q`'s `m` result columns (a
 * view over `SELECT *` of a table that got columns since), as a tree to bind.
 */
function prefixOf(ast: AstNode, n: number, m: number): AstNode {
  const col = (i: number) => `?view column ${i + 1}`;
  const colnames = Array.from({ length: m }, (_, i) => ({ String: { sval: col(i) } }));
  const targetList = Array.from({ length: n }, (_, i) => ({ ResTarget: { val: { ColumnRef: { fields: [{ String: { sval: col(i) } }], location: -1 } }, location: -1 } }));
  return { SelectStmt: { targetList, fromClause: [{ RangeSubselect: { subquery: ast, alias: { aliasname: '?view', colnames } } }], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } };
}

function viewChanged(view: string, why: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.object_not_in_prerequisite_state, `view "${view}" no longer matches the tables it reads: ${why}`, {
    hint: `Re-create the view (DROP VIEW ${view}; CREATE VIEW ${view} AS …).`,
  });
}

/** Parsed view queries by text (the text of a view never changes; a replaced view has new text). */
const PARSED = new Map<string, AstNode>();
const PARSED_MAX = 512;

async function viewQuery(name: string, text: string): Promise<AstNode> {
  const hit = PARSED.get(text);
  if (hit !== undefined) return hit;
  const stmts = await parseSql(text);
  if (stmts.length !== 1 || kindOf(stmts[0]!) !== 'SelectStmt') throw new PaxdError('corruption', SQLSTATE.data_corrupted, `view "${name}": its stored query is not one SELECT: ${JSON.stringify(text.slice(0, 200))}`);
  if (PARSED.size >= PARSED_MAX) PARSED.delete(PARSED.keys().next().value!);
  PARSED.set(text, stmts[0]!);
  return stmts[0]!;
}
