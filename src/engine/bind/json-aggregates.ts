/**
 * The json aggregates (PostgreSQL 15 docs 9.21) and the final function each one's array_agg
 * goes to (./json.ts bindJsonAggregate); ./ast.ts asks whether a call is one of them. And the
 * json set-returning functions paxd does not have (0A000).
 */
export const JSON_AGGREGATES: Readonly<Record<string, string>> = {
  json_agg: 'json_agg_final',
  jsonb_agg: 'jsonb_agg_final',
  json_object_agg: 'json_object_agg_final',
  jsonb_object_agg: 'jsonb_object_agg_final',
};

export function isJsonAggregate(name: string): boolean {
  return Object.hasOwn(JSON_AGGREGATES, name);
}

/**
 * PostgreSQL 15's json/jsonb set-returning functions that paxd lacks (docs 9.16, table 9.47;
 * the others are ../functions/json-set-returning.ts): 0A000 naming them, not 42883. The
 * populate functions take a composite type, which paxd has not; jsonb_path_query a jsonpath.
 */
export const JSON_SET_RETURNING: ReadonlySet<string> = new Set(
  ('json_populate_record jsonb_populate_record json_populate_recordset jsonb_populate_recordset jsonb_path_query jsonb_path_query_array jsonb_path_query_first').split(' '),
);
