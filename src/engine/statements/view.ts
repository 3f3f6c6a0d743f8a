/**
 * CREATE [OR REPLACE] VIEW name [(column, …)] AS query, and DROP VIEW [IF EXISTS] name [, …]
 * [CASCADE | RESTRICT] — PostgreSQL 15's (https://www.postgresql.org/docs/15/sql-createview.html).
 *
 * A view is stored in the store's catalog as a relation of its own (src/table/views.ts): the
 * query text as written after AS, its columns (names and types fixed now: an untyped literal
 * is text, numeric keeps its typmod where the query has one) and the relations it reads. Its
 * query is bound again at each use (../bind/view.ts). OR REPLACE keeps the old columns, names
 * and types, and may only add columns at the end (42P16 otherwise). A view is read-only: INSERT,
 * UPDATE, DELETE and COPY into it are 0A000 (PostgreSQL's automatically updatable views are not
 * built). TEMPORARY, RECURSIVE, WITH (options) and WITH CHECK OPTION are 0A000; so is OR REPLACE
 * of an existing view inside a transaction block (CREATE and DROP VIEW there are transactional),
 * and a column of a type the catalog cannot name yet (arrays, interval: as for CREATE TABLE).
 *
 *   CREATE VIEW big (id, total) AS SELECT o_orderkey, o_totalprice FROM orders WHERE o_totalprice > 1000;
 *   -- CREATE VIEW
 */
import { type ColumnSpec, type Database, type Privileges, type Table, dependentViews } from '../../table/index.js';
import { type Field, type PgType, PaxdError, SQLSTATE, pgDisplayName } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, sourceOf, str } from '../parse.js';
import { bindQuery, queryFields, queryUnknown } from '../bind.js';
import { notSupported, positionOf, SqlError } from '../errors.js';
import { createOwned } from '../access.js';
import { insideView } from '../bind/view.js';
import { T } from '../types.js';
import type { QueryResult } from '../result.js';

export async function createView(db: Database, who: Privileges, stmt: AstNode): Promise<QueryResult> {
  const s = fieldsOf(stmt);
  const rel = s.view as AstFields;
  if (rel.relpersistence === 't') throw notSupported('temporary views', rel.location);
  if (rel.catalogname !== undefined || (rel.schemaname !== undefined && rel.schemaname !== 'public')) throw notSupported('qualified names with schema or database', rel.location);
  if (s.withCheckOption !== undefined && s.withCheckOption !== 'NO_CHECK_OPTION') throw notSupported('WITH CHECK OPTION (views are read-only)');
  if (s.options !== undefined) throw notSupported('view options (WITH (…))');
  const query = s.query as AstNode;
  // CREATE RECURSIVE VIEW: the grammar builds a WITH RECURSIVE that no text of the statement spells.
  if ((fieldsOf(query).withClause?.location as number | undefined) === -1) throw notSupported('CREATE RECURSIVE VIEW', rel.location);
  const name = rel.relname as string;
  const text = queryText(stmt, rel.location as number);
  const reads = new Set<string>();
  const bound = await bindQuery(tracking(db, reads), query);
  const columns = resultColumns(queryFields(bound), queryUnknown(bound), ((s.aliases ?? []) as AstNode[]).map(str), 'CREATE VIEW specifies more column names than columns');
  const view = { query: text, columns: queryFields(bound).map((f) => f.name), dependsOn: [...reads].filter((r) => r !== name).sort() };
  const existing = await relationOrNull(db, name);
  if (existing !== null) {
    if (s.replace !== true) throw new SqlError('exists', SQLSTATE.duplicate_table, `relation "${name}" already exists`, positionOf(rel.location as number));
    if (existing.snapshot.view === undefined) throw wrongObjectType(name, 'view');
    // The new query may not reach the view itself, directly or through views that read it.
    const loops = reads.has(name) || (await dependentViews(db, [name])).some((v) => reads.has(v.name));
    if (loops) throw new SqlError('invalid_input', SQLSTATE.invalid_object_definition, `infinite recursion detected in rules for relation "${name}"`);
    checkReplace(existing.fields, columns);
    if (await inTransactionBlock(db, name)) throw notSupported('CREATE OR REPLACE VIEW of an existing view inside a transaction block');
    await db.replaceView(name, columns, view, existing.snapshot.incarnation ?? 1);
    return done();
  }
  return createOwned(db, who, { relation: rel }, async () => {
    await db.createTable(name, columns, { view });
    return done();
  });
}

function done(): QueryResult {
  return { command: 'CREATE VIEW', tag: 'CREATE VIEW', fields: [], rows: [] };
}

/**
 * The columns a query creates (a view's, CREATE TABLE AS's): names from `names` first, then
 * the query's; types as PostgreSQL keeps them (a typmod where the query has one; an untyped
 * literal is text). More names than columns fail with `tooMany` (42601); a name twice with 42701.
 */
export function resultColumns(fields: readonly { name: string; type: PgType; declared?: PgType }[], unknown: readonly boolean[], names: readonly string[], tooMany: string): ColumnSpec[] {
  if (names.length > fields.length) throw new SqlError('invalid_input', SQLSTATE.syntax_error, tooMany);
  const seen = new Set<string>();
  return fields.map((f, i) => {
    const name = names[i] ?? f.name;
    if (seen.has(name)) throw new SqlError('exists', SQLSTATE.duplicate_column, `column "${name}" specified more than once`);
    seen.add(name);
    return { name, type: unknown[i] === true ? T.text : (f.declared ?? f.type) };
  });
}

/** OR REPLACE: the old columns must stay, with their names and types, in their places (PostgreSQL's checkViewColumns). */
function checkReplace(old: readonly Field[], now: readonly ColumnSpec[]): void {
  const bad = (message: string, hint?: string) => new PaxdError('invalid_input', SQLSTATE.invalid_table_definition, message, hint === undefined ? {} : { hint });
  if (now.length < old.length) throw bad('cannot drop columns from view');
  old.forEach((f, i) => {
    const n = now[i]!;
    if (n.name !== f.name) throw bad(`cannot change name of view column "${f.name}" to "${n.name}"`, 'Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.');
    const t = n.type as PgType;
    if (pgDisplayName(t) !== pgDisplayName(f.type)) throw bad(`cannot change data type of view column "${f.name}" from ${pgDisplayName(f.type)} to ${pgDisplayName(t)}`);
  });
}

/**
 * The text of the query after AS, as the user wrote it: from the view's name, past its column
 * list and options (parentheses, quoted names and comments skipped), to the end of the statement.
 */
function queryText(stmt: AstNode, nameLocation: number): string {
  const src = sourceOf(stmt);
  if (src === null) throw new Error('internal error: CREATE VIEW without its statement text');
  const t = src.text;
  let depth = 0;
  for (let i = nameLocation - src.offset; i < t.length; i++) {
    const c = t[i]!;
    if (c === '"' || c === "'") {
      const end = t.indexOf(c, i + 1);
      i = end < 0 ? t.length : end;
    } else if (c === '-' && t[i + 1] === '-') {
      const end = t.indexOf('\n', i);
      i = end < 0 ? t.length : end;
    } else if (c === '/' && t[i + 1] === '*') {
      const end = t.indexOf('*/', i + 2);
      i = end < 0 ? t.length : end + 1;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && /[Aa]/.test(c) && /^as\b/i.test(t.slice(i, i + 3)) && !/[\w$]/.test(t[i - 1] ?? ' ')) return t.slice(i + 2).trim();
  }
  throw new Error(`internal error: no AS in CREATE VIEW statement ${JSON.stringify(t.slice(0, 200))}`);
}

/** `db` noting the name of every relation the binder opens for the query itself (a view's dependencies; not those of the views it reads). */
function tracking(db: Database, names: Set<string>): Database {
  const view = Object.create(db) as Database;
  Object.defineProperty(view, 'table', {
    value: (name: string): Promise<Table> => {
      if (!insideView()) names.add(name);
      return db.table(name);
    },
  });
  return view;
}

/** The relation `name` (a table or a view), or null when there is none. */
export async function relationOrNull(db: Database, name: string): Promise<Table | null> {
  try {
    return await db.table(name);
  } catch (e) {
    if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) return null;
    throw e;
  }
}

/**
 * True inside a transaction block, whose writes go to write sets (outside one, db.writeSet is
 * null); the transaction's write set of `name` may not exist (no such table, or a view).
 */
export async function inTransactionBlock(db: Database, name: string): Promise<boolean> {
  try {
    return (await db.writeSet(name)) !== null;
  } catch {
    return true;
  }
}

/** `"t" is not a view`, with PostgreSQL's hint (42809). */
export function wrongObjectType(name: string, expected: 'view' | 'table'): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.wrong_object_type, `"${name}" is not a ${expected}`, {
    hint: expected === 'view' ? 'Use DROP TABLE to remove a table.' : 'Use DROP VIEW to remove a view.',
  });
}

/**
 * `COPY name TO …` copies a table only: of a view, PostgreSQL's "cannot copy from view" with
 * its hint (42809); a missing name is 42P01 as for any table. `COPY (SELECT … FROM v) TO` reads views.
 */
export async function checkCopyTo(db: Database, name: string): Promise<void> {
  const t = await db.table(name);
  if (t.snapshot.view !== undefined) throw new PaxdError('invalid_input', SQLSTATE.wrong_object_type, `cannot copy from view "${name}"`, { hint: 'Try the COPY (SELECT ...) TO variant.' });
}

/** `"v" is not a table`: TRUNCATE of a view (42809). */
export function notATable(name: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.wrong_object_type, `"${name}" is not a table`);
}

/**
 * DROP TABLE's and DROP VIEW's checks of the relations about to go (`names`, all present):
 * each must be of the statement's kind (42809), and views that read one of them and are not
 * dropped too fail the statement without CASCADE (2BP01, PostgreSQL's message, detail and
 * hint) and, with it, are returned, in the order to drop them (before what they read).
 */
export async function checkDrop(db: Database, names: readonly string[], kind: 'table' | 'view', cascade: boolean): Promise<string[]> {
  for (const name of names) {
    const r = await relationOrNull(db, name);
    if (r !== null && (r.snapshot.view !== undefined) !== (kind === 'view')) throw wrongObjectType(name, kind);
  }
  const dependents = await dependentViews(db, names);
  if (dependents.length === 0 || cascade) return dependents.map((v) => v.name);
  const first = names.find((n) => dependents.some((v) => v.dependsOn.includes(n))) ?? names[0]!;
  const all = new Set(names);
  const kindOf = (n: string) => (all.has(n) ? kind : 'view');
  const detail = dependents
    .slice()
    .reverse()
    .flatMap((v) => v.dependsOn.filter((d) => all.has(d) || dependents.some((w) => w.name === d)).map((d) => `view ${v.name} depends on ${kindOf(d)} ${d}`));
  throw new PaxdError('invalid_input', SQLSTATE.dependent_objects_still_exist, `cannot drop ${kind} ${first} because other objects depend on it`, {
    detail: detail.join('\n'),
    hint: 'Use DROP ... CASCADE to drop the dependent objects too.',
  });
}

/** DROP VIEW [IF EXISTS] name [, …] [CASCADE | RESTRICT]. */
export async function dropView(db: Database, s: AstFields): Promise<QueryResult> {
  const names: string[] = [];
  for (const o of (s.objects ?? []) as AstNode[]) {
    const parts = (fieldsOf(o).items as AstNode[]).map(str);
    if (parts.length > 2 || (parts.length === 2 && parts[0] !== 'public')) throw notSupported('qualified names with schema or database');
    const name = parts[parts.length - 1]!;
    if (!names.includes(name)) names.push(name);
  }
  const present: string[] = [];
  for (const name of names) {
    if ((await relationOrNull(db, name)) !== null) present.push(name);
    else if (s.missing_ok !== true) throw new SqlError('not_found', SQLSTATE.undefined_table, `view "${name}" does not exist`);
  }
  const dependents = await checkDrop(db, present, 'view', s.behavior === 'DROP_CASCADE');
  for (const name of [...dependents, ...present]) await dropOne(db, name);
  return { command: 'DROP VIEW', tag: 'DROP VIEW', fields: [], rows: [] };
}

/** Drops one relation; one dropped by someone else meanwhile is gone as asked. */
export async function dropOne(db: Database, name: string): Promise<void> {
  try {
    await db.dropTable(name);
  } catch (e) {
    if (!(e instanceof PaxdError && e.code === SQLSTATE.undefined_table)) throw e;
  }
}
