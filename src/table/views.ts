/**
 * Views in the store's catalog (docs/FORMAT.md "Views"). A view is a relation of the same
 * namespace as tables: its name is a catalog entry whose snapshot has a `view` definition
 * (src/storage/snapshot-types.ts ViewJson: the query text as written, the relations it reads)
 * and its result columns as fields, and no files. It is created, replaced and dropped through
 * the same commits as tables, so it is transactional with them, survives a restart, and other
 * sessions see it at their next snapshot. The engine parses and binds the query again at each
 * use (src/engine/bind/view.ts).
 *
 *   const db = (await Database.open(dir)).pinned();
 *   await listViews(db)
 *   // [{ name: 'big_orders', columns: [{ name: 'id', type: { id: 'int8' } }, …],
 *   //    definition: 'SELECT id, total FROM orders WHERE total > 100', dependsOn: ['orders'] }]
 */
import { type PgType, PaxdError, SQLSTATE } from '../types/index.js';
import { isView, listTables } from '../storage/index.js';
import type { Database } from './database.js';

/** One view as the catalog holds it (what pg_views, information_schema.views and pg_get_viewdef need). */
export interface ViewInfo {
  readonly name: string;
  /** Its columns, in order, with their types, as fixed at CREATE (or widened by OR REPLACE). */
  readonly columns: readonly { readonly name: string; readonly type: PgType }[];
  /** The SELECT as its creator wrote it (the text after AS). */
  readonly definition: string;
  /** Tables and views the definition reads, sorted. */
  readonly dependsOn: readonly string[];
}

/**
 * The views of `db` at its snapshot (give it `db.pinned()` to read every relation at one
 * root), sorted by name. Reads each relation's snapshot (from memory once this process has
 * read it).
 */
export async function listViews(db: Database): Promise<ViewInfo[]> {
  const out: ViewInfo[] = [];
  for (const name of await listTables(db.store)) {
    let t;
    try {
      t = await db.table(name);
    } catch (e) {
      // Dropped between the listing and the read.
      if (e instanceof PaxdError && e.code === SQLSTATE.undefined_table) continue;
      throw e;
    }
    const s = t.snapshot;
    if (!isView(s)) continue;
    out.push(Object.freeze({ name, columns: t.fields.map((f) => Object.freeze({ name: f.name, type: f.type })), definition: s.view!.query, dependsOn: s.view!.dependsOn }));
  }
  return out;
}

/**
 * The views that read any of `names`, directly or through other views, in the order they
 * can be dropped (a view before the views it reads); `names` themselves are left out.
 */
export async function dependentViews(db: Database, names: readonly string[]): Promise<ViewInfo[]> {
  const views = await listViews(db);
  const gone = new Set(names);
  const found: ViewInfo[] = [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const v of views) {
      if (gone.has(v.name) || !v.dependsOn.some((d) => gone.has(d))) continue;
      gone.add(v.name);
      found.push(v);
      grew = true;
    }
  }
  // Dependents first: a view found later reads one found earlier, so drop in reverse order.
  return found.reverse();
}
