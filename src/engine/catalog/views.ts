/**
 * The views of the catalog snapshot, for pg_class, pg_views, information_schema.views and
 * pg_get_viewdef. CREATE VIEW is another part of the engine (the `views` work of issue #19):
 * until it lands paxd has no views, and this returns none. The one place to wire them in.
 */
import type { CatalogSnapshot } from './snapshot.js';

export interface CatalogView {
  readonly name: string;
  readonly oid: number;
  readonly owner: string;
  readonly columns: readonly string[];
  /** The SELECT, as pg_get_viewdef prints it. */
  readonly definition: string;
}

export function listViews(_c: CatalogSnapshot): readonly CatalogView[] {
  return [];
}
