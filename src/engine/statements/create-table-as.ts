/**
 * CREATE TABLE [IF NOT EXISTS] name [(column, …)] [WITH (layout = …, codec = …)] AS query
 * [WITH [NO] DATA], and SELECT … INTO [TABLE] name FROM … — PostgreSQL 15's
 * (https://www.postgresql.org/docs/15/sql-createtableas.html, sql-selectinto.html).
 *
 * The new table's columns are the query's result columns as PostgreSQL derives them: names
 * from the column list, then the query's (`?column?` for an unnamed expression), types with
 * the typmods the query keeps (numeric(12,2) of a column; numeric without one for an
 * expression), an untyped literal as text (./view.ts resultColumns). Its rows are the query's,
 * written through the table's one write path: on their own, a sink whose commit creates the
 * table with its rows in one snapshot (so an error leaves no table behind); in a transaction
 * block, the transaction's CREATE TABLE and write set, committed at COMMIT. The command tag
 * is `SELECT n` (`CREATE TABLE AS` for WITH NO DATA and for IF NOT EXISTS over an existing
 * relation, which does nothing). TEMPORARY, UNLOGGED, USING, TABLESPACE, ON COMMIT and
 * CREATE MATERIALIZED VIEW are 0A000.
 *
 *   CREATE TABLE top_customers AS SELECT o_custkey, sum(o_totalprice) AS total FROM orders GROUP BY 1;
 *   -- SELECT 300    (columns o_custkey integer, total numeric)
 */
import type { Database, Privileges } from '../../table/index.js';
import { type Field, type Value, SQLSTATE, columnOf } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { bindQuery, queryFields, queryUnknown } from '../bind.js';
import { notSupported, positionOf, SqlError } from '../errors.js';
import { run } from '../exec/run.js';
import { planQuery } from '../plan.js';
import { createOwned } from '../access.js';
import type { QueryResult } from '../result.js';
import { assignValue } from './assign.js';
import { tableOptions } from './create-table.js';
import { inTransactionBlock, relationOrNull, resultColumns } from './view.js';

/** True for SELECT … INTO: a SELECT that creates a table (run by createTableAs, not as a query). */
export function isSelectInto(stmt: AstNode): boolean {
  return kindOf(stmt) === 'SelectStmt' && fieldsOf(stmt).intoClause !== undefined;
}

/** CREATE TABLE … AS (a CreateTableAsStmt) or SELECT … INTO (a SelectStmt with an intoClause). */
export async function createTableAs(db: Database, who: Privileges, stmt: AstNode): Promise<QueryResult> {
  const s = fieldsOf(stmt);
  const selectInto = kindOf(stmt) === 'SelectStmt';
  if (!selectInto && s.objtype === 'OBJECT_MATVIEW') throw notSupported('materialized views');
  const into = (selectInto ? s.intoClause : s.into) as AstFields;
  const query: AstNode = selectInto ? { SelectStmt: { ...s, intoClause: undefined } } : (s.query as AstNode);
  if (!selectInto && kindOf(query) !== 'SelectStmt') throw notSupported(`CREATE TABLE AS ${kindOf(query).replace(/Stmt$/, '').toUpperCase()}`);
  const rel = into.rel as AstFields;
  if (rel.relpersistence === 't') throw notSupported('temporary tables', rel.location);
  if (rel.relpersistence === 'u') throw notSupported('unlogged tables', rel.location);
  if (rel.catalogname !== undefined || (rel.schemaname !== undefined && rel.schemaname !== 'public')) throw notSupported('qualified names with schema or database', rel.location);
  if (into.accessMethod !== undefined) throw notSupported('USING (table access methods)', rel.location);
  if (into.tableSpaceName !== undefined) throw notSupported('TABLESPACE', rel.location);
  if (into.onCommit !== undefined && into.onCommit !== 'ONCOMMIT_NOOP') throw notSupported('ON COMMIT', rel.location);
  const options = tableOptions((into.options ?? []) as AstNode[]);
  const name = rel.relname as string;
  const tag = (n: number | null): QueryResult => ({ command: n === null ? 'CREATE TABLE AS' : 'SELECT', tag: n === null ? 'CREATE TABLE AS' : `SELECT ${n}`, fields: [], rows: [] });
  // IF NOT EXISTS: PostgreSQL checks the name before it looks at the query.
  if (s.if_not_exists === true && (await relationOrNull(db, name)) !== null) return tag(null);
  const bound = await bindQuery(db, query);
  const fields = queryFields(bound);
  const unknown = queryUnknown(bound);
  const columns = resultColumns(fields, unknown, ((into.colNames ?? []) as AstNode[]).map(str), 'too many column names were specified');
  if ((await relationOrNull(db, name)) !== null) throw new SqlError('exists', SQLSTATE.duplicate_table, `relation "${name}" already exists`, positionOf(rel.location as number));
  const skip = into.skipData === true;
  return createOwned(db, who, { relation: rel }, async () => {
    const table = db.prepareTable(name, columns, options);
    const r = skip ? null : await run(planQuery(bound));
    const cols: Value[][] = table.fields.map(() => []);
    if (r !== null) {
      table.fields.forEach((f: Field, j) => {
        const out = cols[j]!;
        for (const row of r.rows) out.push(assignValue(fields[j]!.type, unknown[j]!, f, row[j]!));
      });
    }
    db.checkInterrupts();
    if (await inTransactionBlock(db, name)) {
      // A transaction block: its CREATE TABLE, and the rows into its write set, all at COMMIT.
      await db.createTable(name, columns, options);
      if (r !== null && r.rows.length > 0) await (await db.writeSet(name))!.insert(cols);
    } else {
      const sink = table.sink();
      try {
        if (r !== null && r.rows.length > 0) await sink.write({ length: r.rows.length, columns: table.fields.map((f, j) => columnOf(f.type, cols[j]!)), selection: null });
        await sink.commit();
      } catch (e) {
        await sink.abort().catch(() => undefined);
        throw e;
      }
    }
    return tag(r === null ? null : r.rows.length);
  });
}
