/**
 * The json aggregates (PostgreSQL 15 docs 9.21) and the final function each one's array_agg
 * goes to (./json.ts bindJsonAggregate); ./ast.ts asks whether a call is one of them. And the
 * json set-returning functions, which wait for set-returning function support (0A000 until then).
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

/** PostgreSQL 15's json/jsonb set-returning functions (docs 9.16, table 9.47): 0A000 naming them, not 42883. */
export const JSON_SET_RETURNING: ReadonlySet<string> = new Set(
  ('json_array_elements json_array_elements_text jsonb_array_elements jsonb_array_elements_text json_each json_each_text jsonb_each ' +
    'jsonb_each_text json_object_keys jsonb_object_keys json_populate_record jsonb_populate_record json_populate_recordset jsonb_populate_recordset ' +
    'json_to_record jsonb_to_record json_to_recordset jsonb_to_recordset jsonb_path_query').split(' '),
);
