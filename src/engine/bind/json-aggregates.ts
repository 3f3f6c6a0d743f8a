/**
 * The json aggregates (PostgreSQL 15 docs 9.21) and the final function each one's array_agg
 * goes to (./json.ts bindJsonAggregate); ./ast.ts asks whether a call is one of them.
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
