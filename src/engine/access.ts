/**
 * The privilege check of every statement the engine runs (issue #18), before it reads or writes
 * anything, as PostgreSQL's ExecCheckPermissions and the DDL commands' ownership checks do
 * (https://www.postgresql.org/docs/15/ddl-priv.html). The rules are src/table/privileges.ts's;
 * this file knows which statement needs what:
 *
 *   SELECT, EXPLAIN    SELECT on every table read
 *   INSERT             INSERT on the target (SELECT too with RETURNING), SELECT on tables read
 *   UPDATE             UPDATE on the target (SELECT too when it reads a column: WHERE, SET x = x + 1,
 *                      RETURNING), SELECT on the other tables
 *   DELETE             DELETE on the target (SELECT too with WHERE or RETURNING), SELECT on USING
 *   TRUNCATE           TRUNCATE on each table
 *   CREATE TABLE       CREATE on schema public; the creator owns the table
 *   CREATE VIEW, CREATE TABLE AS, SELECT INTO   the same, and SELECT on the tables the query reads
 *   DROP/ALTER TABLE   ownership (DROP VIEW too)
 *   COPY t FROM STDIN  INSERT on t (authorizeCopyFrom; COPY TO runs a SELECT through here)
 *   COPY … 'file'      refused to everyone (42501), as the wire refuses it
 *
 *   await query(db, 'INSERT INTO t VALUES (1)', undefined, { user: 'reader' })
 *   // 42501 permission denied for table t
 *
 * The check runs at execution, not at Parse, as in PostgreSQL: a prepared statement is checked
 * each time it runs, against the roles as they are then. A name that is no table (a CTE, a
 * catalog relation, a missing table) is left to the binder (42P01 as before).
 */
import { type Database, type Privileges, type TablePrivilege, privilegesOf, roleCatalogOf, serverFileCopyRefused } from '../table/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, str } from './parse.js';
import { currentUser } from './context.js';
import { tableExists } from './statements/create-table.js';
import type { QueryResult } from './result.js';

/** Checks that the current user may run `stmt`; returns what it may do (GRANT and the role statements ask more). */
export async function authorize(db: Database, stmt: AstNode): Promise<Privileges> {
  const copy = kindOf(stmt) === 'CopyStmt' ? fieldsOf(stmt) : null;
  if (copy !== null && (copy.filename !== undefined || copy.is_program === true))
    throw serverFileCopyRefused(copy.is_from === true ? 'from' : 'to', copy.is_program === true);
  const who = await privilegesOf(db.store, currentUser());
  if (who.superuser) return who;
  for (const [table, p] of needs(stmt)) {
    if (p === 'OWNER') {
      if (await tableExists(db, table)) who.requireOwner(table);
    } else if (p === 'CREATE') who.requireCreate();
    else if (!who.has(table, p) && (await tableExists(db, table))) who.requireTable(table, p);
  }
  return who;
}

/** COPY `table` FROM STDIN by `user` (the wire's copy-in, before a byte is loaded): INSERT on it. */
export async function authorizeCopyFrom(db: Database, user: string | undefined, table: string): Promise<void> {
  const who = await privilegesOf(db.store, user);
  if (!who.has(table, 'INSERT') && (await tableExists(db, table))) who.requireTable(table, 'INSERT');
}

/**
 * CREATE TABLE, and then the creator owns the new table. A table made by a superuser belongs
 * to the bootstrap superuser (no entry), and a name created again never inherits the grants of
 * the table it once named. IF NOT EXISTS on a table that exists changes no right.
 */
export async function createOwned(db: Database, who: Privileges, s: AstFields, create: () => Promise<QueryResult>): Promise<QueryResult> {
  const name = (s.relation as AstFields).relname as string;
  if (s.if_not_exists === true && (await tableExists(db, name))) return create();
  const r = await create();
  const catalog = roleCatalogOf(db.store);
  const state = await catalog.current();
  if (who.superuser && !Object.hasOwn(state.tables, name)) return r;
  await catalog.commit((draft) => {
    if (who.superuser) delete draft.tables[name];
    else draft.tables[name] = { owner: who.user, grants: {} };
  });
  return r;
}

type Need = readonly [table: string, privilege: TablePrivilege | 'OWNER' | 'CREATE'];

/** What `stmt` needs, target first (the order PostgreSQL's range table checks them in). */
function needs(stmt: AstNode): Need[] {
  const s = fieldsOf(stmt);
  const ctes = cteNames(stmt, new Set());
  switch (kindOf(stmt)) {
    case 'SelectStmt':
      if (s.intoClause !== undefined) return [['', 'CREATE'], ...reads({ ...s, intoClause: undefined }, ctes)];
      return reads(stmt, ctes);
    case 'ViewStmt':
    case 'CreateTableAsStmt':
      return [['', 'CREATE'], ...reads(s.query, ctes)];
    case 'ExplainStmt':
      return needs(s.query as AstNode);
    case 'InsertStmt': {
      const target = nameOf(s.relation as AstFields);
      const out: Need[] = [[target, 'INSERT']];
      if (s.returningList !== undefined) out.push([target, 'SELECT']);
      return out.concat(reads([s.selectStmt, s.withClause], ctes));
    }
    case 'UpdateStmt': {
      const target = nameOf(s.relation as AstFields);
      const out: Need[] = [[target, 'UPDATE']];
      if (s.whereClause !== undefined || s.returningList !== undefined || mentionsColumn(s.targetList)) out.push([target, 'SELECT']);
      return out.concat(reads([s.targetList, s.fromClause, s.whereClause, s.withClause], ctes));
    }
    case 'DeleteStmt': {
      const target = nameOf(s.relation as AstFields);
      const out: Need[] = [[target, 'DELETE']];
      if (s.whereClause !== undefined || s.returningList !== undefined) out.push([target, 'SELECT']);
      return out.concat(reads([s.usingClause, s.whereClause, s.withClause], ctes));
    }
    case 'TruncateStmt':
      return ((s.relations ?? []) as AstNode[]).map((r) => [nameOf(fieldsOf(r)), 'TRUNCATE'] as const);
    case 'CreateStmt':
      return [['', 'CREATE']];
    case 'AlterTableStmt':
      return [[nameOf(s.relation as AstFields), 'OWNER']];
    case 'DropStmt':
      if (s.removeType !== 'OBJECT_TABLE' && s.removeType !== 'OBJECT_VIEW') return [];
      return ((s.objects ?? []) as AstNode[]).map((o) => {
        const parts = (fieldsOf(o).items as AstNode[]).map(str);
        return [parts[parts.length - 1]!, 'OWNER'] as const;
      });
    default:
      return [];
  }
}

/** `public.t` and `t` name table t; other qualified names are left to the statement (0A000). */
function nameOf(rel: AstFields): string {
  return rel.relname as string;
}

/** SELECT on every table a tree reads: its RangeVars that name no CTE of the tree. */
function reads(tree: unknown, names: ReadonlySet<string>): Need[] {
  const out: Need[] = [];
  walk(tree, (key, v) => {
    if (key !== 'RangeVar') return;
    const rel = v as AstFields;
    if (rel.catalogname !== undefined) return;
    if (rel.schemaname !== undefined && rel.schemaname !== 'public') return; // pg_catalog, information_schema
    const name = rel.relname as string;
    if (rel.schemaname === undefined && names.has(name)) return;
    out.push([name, 'SELECT']);
  });
  return out;
}

function cteNames(tree: unknown, out: Set<string>): Set<string> {
  walk(tree, (key, v) => {
    if (key === 'CommonTableExpr') out.add((v as AstFields).ctename as string);
  });
  return out;
}

function mentionsColumn(tree: unknown): boolean {
  let found = false;
  walk(tree, (key) => {
    if (key === 'ColumnRef') found = true;
  });
  return found;
}

/** Calls `f` on every keyed node of a libpg-query JSON tree, in document order. */
function walk(tree: unknown, f: (key: string, value: unknown) => void): void {
  if (Array.isArray(tree)) {
    for (const x of tree) walk(x, f);
    return;
  }
  if (tree === null || typeof tree !== 'object') return;
  for (const [k, v] of Object.entries(tree)) {
    f(k, v);
    walk(v, f);
  }
}
