/**
 * INSERT INTO name [(columns)] VALUES (…), … | SELECT … [ON CONFLICT DO NOTHING] [RETURNING …]
 *
 * On its own, the rows go through the table's sink (src/insert/sink.ts) in one batch and one
 * commit, so the statement is atomic: a NOT NULL violation (23502, checked by the sink), a bad
 * literal or an out-of-range value leaves the table as it was. In a transaction block they go
 * to the transaction's write set (src/table/write-set.ts: buffered in memory, committed at
 * COMMIT). Columns not named get their DEFAULT (or NULL); each value is coerced to its column
 * by PostgreSQL's assignment rules (./assign.ts). A bare `$n` in VALUES takes its column's
 * type (describeInsert), as postgres_fdw's `INSERT … VALUES ($1, $2)` with no parameter
 * types needs. The command tag is `INSERT 0 n`. paxd has no unique constraints, so ON
 * CONFLICT DO NOTHING inserts every row; an ON CONFLICT naming a conflict target is 42P10 as
 * in PostgreSQL. RETURNING evaluates over the rows inserted. WITH and OVERRIDING are 0A000.
 */
import { Table, type Database } from '../../table/index.js';
import { type Field, type PgType, type Value, SQLSTATE, columnOf, parseText } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, kindOf, locationOf, valuesListNodes } from '../parse.js';
import { bindQuery, bindValue, isUnknownLiteral, openTable, queryUnknown } from '../bind.js';
import { notSupported, positionOf, SqlError, undefinedColumn } from '../errors.js';
import { evaluate } from '../exec/eval.js';
import { run } from '../exec/run.js';
import { planQuery } from '../plan.js';
import { engineType } from '../types.js';
import type { QueryResult, ResultField } from '../result.js';
import { assignExpr, assignValue, checkAssignable } from './assign.js';
import { toEngine } from './positions.js';
import { scanDatabase, targetName, transactionWrites } from './target.js';
import { bindOverTarget, returningRows } from './where.js';

export async function insert(db: Database, s: AstFields): Promise<QueryResult> {
  checkOnConflict(s.onConflictClause as AstFields | undefined);
  if (s.withClause !== undefined) throw notSupported('WITH');
  const rel = s.relation as AstFields;
  const name = targetName(rel);
  const ws = await transactionWrites(db, name, rel.location as number);
  // In a transaction the columns come from the write set: opening the table would make its staged snapshot.
  const table = ws !== null ? new Table(ws.store, name, ws.scanSnapshot()) : await openTable(db, name, rel.location as number);
  const returning = (s.returningList ?? []) as AstNode[];
  const bound = returning.length > 0 ? await bindOverTarget(ws !== null ? scanDatabase(db, ws) : db, rel, [], returning, undefined) : null;
  const source = s.selectStmt === undefined ? null : fieldsOf(s.selectStmt);
  if (source === null) throw notSupported('INSERT … DEFAULT VALUES');
  const named = (s.cols ?? []) as AstNode[];
  // Without a column list the targets are the table's first columns, as many as the source has.
  const lists = source.valuesLists === undefined ? null : valuesListNodes(source.valuesLists);
  let targets: Field[];
  let rows: (Value | undefined)[][];
  if (lists !== null) {
    targets = named.length > 0 ? targetFields(table, named) : table.fields.slice(0, Math.min(table.fields.length, (fieldsOf(lists[0]!).items as AstNode[]).length));
    rows = valuesRows(lists, targets, named.length === 0 ? table.fields.length : targets.length);
  } else {
    const q = await bindQuery(db, s.selectStmt as AstNode);
    // A string literal the query outputs is still unknown: it takes its column's type.
    const unknown = queryUnknown(q);
    const r = await run(planQuery(q));
    targets = named.length > 0 ? targetFields(table, named) : table.fields.slice(0, Math.min(table.fields.length, r.fields.length));
    rows = selectRows(r, unknown, targets, named.length === 0 ? table.fields.length : targets.length);
  }
  // Each row holds one value per target column (undefined = DEFAULT), already in storage form.
  const slot = new Map(targets.map((f, i) => [f.fieldId, i]));
  const defaults = table.fields.map((f) => (f.default === undefined ? null : parseText(f.type, f.default)));
  const cols: Value[][] = table.fields.map(() => new Array<Value>(rows.length));
  table.fields.forEach((f, j) => {
    const i = slot.get(f.fieldId);
    const out = cols[j]!;
    for (let r = 0; r < rows.length; r++) {
      const v = i === undefined ? undefined : rows[r]![i];
      out[r] = v === undefined ? defaults[j]! : v;
    }
  });
  if (rows.length > 0) {
    if (ws !== null) await ws.insert(cols);
    else await write(table, cols);
  }
  const out: Value[][] = [];
  if (bound !== null && rows.length > 0) {
    const batch = {
      rows: rows.length,
      cols: bound.select.columns.map((f) => {
        const j = table.fields.findIndex((x) => x.fieldId === f.fieldId);
        return j < 0 ? new Array<Value>(rows.length).fill(null) : toEngine(table.fields[j]!, cols[j]!);
      }),
    };
    returningRows(bound, 0, batch, out);
  }
  return { command: 'INSERT', tag: `INSERT 0 ${rows.length}`, fields: bound?.fields ?? [], rows: out };
}

/**
 * ON CONFLICT: paxd has no unique or exclusion constraints, so nothing ever conflicts and DO
 * NOTHING inserts every row; a conflict target cannot match any constraint (42P10), and DO
 * UPDATE without one is 42601, as PostgreSQL says.
 */
function checkOnConflict(c: AstFields | undefined): void {
  if (c === undefined) return;
  if (c.infer !== undefined)
    throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, 'there is no unique or exclusion constraint matching the ON CONFLICT specification', positionOf(c.location));
  if (c.action !== 'ONCONFLICT_NOTHING')
    throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'ON CONFLICT DO UPDATE requires inference specification or constraint name', positionOf(c.location));
}

/**
 * Describe (the infer phase): a bare `$n` in VALUES takes its column's type, as PostgreSQL's
 * INSERT does; RETURNING's fields, or null without it.
 */
export async function describeInsert(db: Database, s: AstFields, types: (PgType | null)[]): Promise<ResultField[] | null> {
  const rel = s.relation as AstFields;
  const table = await openTable(db, targetName(rel), rel.location as number);
  const named = ((s.cols ?? []) as AstNode[]).map((c) => fieldsOf(c).name as string);
  const targets = named.length > 0 ? named.map((n) => table.fields.find((f) => f.name === n)) : table.fields;
  const source = s.selectStmt === undefined ? null : fieldsOf(s.selectStmt as AstNode);
  if (source?.valuesLists !== undefined)
    for (const l of valuesListNodes(source.valuesLists))
      (fieldsOf(l).items as AstNode[]).forEach((item, i) => {
        const f = targets[i];
        if (kindOf(item) === 'ParamRef' && f !== undefined) {
          const k = (fieldsOf(item).number as number) - 1;
          while (types.length <= k) types.push(null);
          types[k] ??= engineType(f.type);
        } else if (kindOf(item) !== 'SetToDefault') bindValue(item, 'VALUES');
      });
  else if (source !== null) await bindQuery(db, s.selectStmt as AstNode);
  const returning = (s.returningList ?? []) as AstNode[];
  if (returning.length === 0) return null;
  return [...(await bindOverTarget(db, rel, [], returning, undefined)).fields];
}

async function write(table: Table, cols: Value[][]): Promise<void> {
  const sink = table.sink();
  try {
    await sink.write({ length: cols[0]!.length, columns: table.fields.map((f, j) => columnOf(f.type, cols[j]!)), selection: null });
    await sink.commit();
  } catch (e) {
    await sink.abort().catch(() => undefined);
    throw e;
  }
}

/** The named target columns, or all in table order; unknown (42703) and repeated (42701) names fail. */
function targetFields(table: Table, cols: AstNode[]): Field[] {
  if (cols.length === 0) return [...table.fields];
  const seen = new Set<string>();
  return cols.map((c) => {
    const rt = fieldsOf(c);
    if (rt.indirection !== undefined) throw notSupported('INSERT into subfields or array elements', rt.location);
    const name = rt.name as string;
    const f = table.fields.find((x) => x.name === name);
    if (f === undefined) throw undefinedColumn(name, rt.location, table.name);
    if (seen.has(name)) throw new SqlError('invalid_input', SQLSTATE.duplicate_column, `column "${name}" specified more than once`, positionOf(rt.location));
    seen.add(name);
    return f;
  });
}

function arityError(values: number, targets: number, location?: number): SqlError {
  return new SqlError(
    'invalid_input',
    SQLSTATE.syntax_error,
    values > targets ? 'INSERT has more expressions than target columns' : 'INSERT has more target columns than expressions',
    positionOf(location),
  );
}

/** VALUES lists: each item is bound on its own and coerced to its column (PostgreSQL does the same for INSERT … VALUES). */
function valuesRows(lists: AstNode[], targets: readonly Field[], max: number): (Value | undefined)[][] {
  const width = (fieldsOf(lists[0]!).items as AstNode[]).length;
  return lists.map((l) => {
    const items = fieldsOf(l).items as AstNode[];
    if (items.length !== width) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'VALUES lists must all be the same length', positionOf(locationOf(items[0] ?? l)));
    if (items.length !== targets.length || items.length > max) throw arityError(items.length, targets.length, locationOf(items[Math.min(items.length, targets.length) - 1] ?? l));
    return items.map((item, i) => {
      if (kindOf(item) === 'SetToDefault') return undefined;
      const e = bindValue(item, 'VALUES');
      const f = targets[i]!;
      if (!isUnknownLiteral(e)) checkAssignable(e.type, f, locationOf(item));
      return assignExpr(e, f, evaluate(e, { rows: 1, cols: [] })[0]!);
    });
  });
}

/** INSERT … SELECT: the query's rows, each value assignment-cast to its column. */
function selectRows(r: QueryResult, unknown: readonly boolean[], targets: readonly Field[], max: number): Value[][] {
  if (r.fields.length !== targets.length || r.fields.length > max) throw arityError(r.fields.length, targets.length);
  r.fields.forEach((f, i) => {
    if (!unknown[i]) checkAssignable(f.type, targets[i]!);
  });
  return r.rows.map((row) => row.map((v, i) => assignValue(r.fields[i]!.type, unknown[i]!, targets[i]!, v)));
}
