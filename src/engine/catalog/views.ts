/**
 * The views of the catalog snapshot (src/table/views.ts: a view is a catalog entry whose
 * snapshot holds its query and columns), for pg_class, pg_views, information_schema.views and
 * pg_get_viewdef. The definition is the SELECT as its creator wrote it, not PostgreSQL's
 * deparsed form.
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

export function listViews(c: CatalogSnapshot): readonly CatalogView[] {
  return c.views;
}
