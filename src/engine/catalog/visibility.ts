/**
 * The relations that search_path (`pg_catalog, public`) does not reach: information_schema's,
 * for pg_table_is_visible. ./information-schema.ts registers them.
 */
export const INVISIBLE_RELATIONS = new Set<number>();
