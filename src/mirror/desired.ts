/**
 * The foreign tables paxd's tables call for: one per table, columns in paxd's order with
 * their PostgreSQL types, NOT NULL, and COLLATE "C" on strings (./types.ts). Sorted by
 * name, so the plan and its signature do not depend on listing order.
 */
import type { Database } from '../table/index.js';
import { listTables } from '../storage/index.js';
import { SQLSTATE, foreignColumn, type ForeignTableSpec } from '../types/index.js';

export async function desiredTables(db: Database): Promise<ForeignTableSpec[]> {
  const out: ForeignTableSpec[] = [];
  // Names from the listing, schemas through db.table(), which reuses a snapshot while the
  // listing shows it unchanged: the daemon's poll reads no snapshot file when nothing changed.
  for (const name of await listTables(db.store)) {
    let fields;
    try {
      fields = (await db.table(name)).fields;
    } catch (e) {
      // Dropped between the listing and the read: it is gone, so it is not mirrored.
      if ((e as { code?: string }).code === SQLSTATE.undefined_table) continue;
      throw e;
    }
    out.push({ name, columns: fields.map(foreignColumn) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A string that changes exactly when the desired foreign tables change (the daemon polls it). */
export function signature(tables: readonly ForeignTableSpec[]): string {
  return JSON.stringify(tables);
}
