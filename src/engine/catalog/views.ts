/**
 * The views of the catalog snapshot (src/table/views.ts: a view is a catalog entry whose
 * snapshot holds its query and columns), for pg_class, pg_views, information_schema.views and
 * pg_get_viewdef. The definition is the SELECT as its creator wrote it, not PostgreSQL's
 * deparsed form.
 */
import type { CatalogSnapshot, CatalogView } from './snapshot.js';

export type { CatalogView };

export function listViews(c: CatalogSnapshot): readonly CatalogView[] {
  return c.views;
}
