/**
 * The binder, the stage after ./parse.ts: a parsed SELECT over paxd's catalog becomes a bound
 * query (./ir.ts: a BoundSelect, BoundJoinSelect or BoundSetOp), with
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
 *
 * postgres_fdw's dialect (docs/MIRROR.md): `x op ANY|ALL (ARRAY[…] | '{…}'::type[] | $n)` as the
 * OR/AND of comparisons (an IN list the scan can push), `(ARRAY[…])[i]`, `~ ~* !~ !~*`
 * (./exec/regex.ts), FOR UPDATE/SHARE (a no-op: the pinned snapshot is read), the `ctid`
 * system column (./ctid.ts), `'t'::regclass` with pg_relation_size, whole-row
 * `(r.*)::text IS NOT NULL` and ROW(…) (record text), stddev/variance families, string_agg
 * and array_agg with ORDER BY and FILTER, percentile_cont/disc WITHIN GROUP, `pg_catalog.`
 * qualified function names.
 *
 * Relational queries (`bindQuery`): FROM lists, [INNER|LEFT|RIGHT|FULL|CROSS] JOIN … ON /
 * USING / NATURAL, subqueries in FROM (with column aliases), SELECT without FROM, UNION [ALL]
 * (./bind/query.ts `bindSetOp`), uncorrelated subqueries in expressions (scalar, EXISTS,
 * IN/ANY/ALL: InitPlans, ./ir.ts, which the executor runs, ./exec/init-plans.ts), correlated
 * [NOT] EXISTS by equalities as semi-/anti-joins. Their expressions read one global row layout
 * (BoundJoinSelect.columns: a slot per leaf field read). Names resolve as PostgreSQL's do: 42702
 * for an ambiguous column, 42P01 for a qualifier no FROM item has. `$n` parameters bind per
 * ./context.ts. The binder reads the catalog and runs nothing.
 *
 * This file is the stage's surface; the binder lives in ./bind/, one concept per file:
 *   query.ts        a query, recursively: FROM items, subqueries, EXISTS joins, UNION
 *   select.ts       the Binder: a SELECT's clauses and aggregates, over the layers below
 *   expressions.ts  expression nodes, function calls, CASE, arrays, subqueries (InitPlans)
 *   operators.ts    operators and casts by PostgreSQL's type rules
 *   scope.ts        FROM scope: slots, column references, JOIN … USING merges, ctid
 *   functions.ts    the scalar function library's signatures (date/time, math, …)
 *   catalog.ts      tables, regclass, type names, casts, aggregate result types
 *   literals.ts     unknown-typed literals and `$n` parameters
 *   ast.ts          parse-tree helpers
 */
export type { AggCall, AggName, BoundJoinSelect, BoundQuery, BoundSelect, BoundSetOp, FromNode, JoinType, Leaf, OrderItem, SlotColumn, Target } from './ir.js';
export { COLLECTING_AGGREGATES, leavesOf, queryFields } from './ir.js';
export { bindQuery, bindSelect } from './bind/query.js';
export { bindCondition, bindValue } from './bind/select.js';
export { isUnknownLiteral, queryUnknown } from './bind/literals.js';
export { aggregateType, openTable, typeOf } from './bind/catalog.js';
