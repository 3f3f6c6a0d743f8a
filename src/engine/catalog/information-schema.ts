/**
 * The information_schema views tools read (PostgreSQL 15 docs chapter 37): tables, columns,
 * schemata, views, table_constraints, key_column_usage, over paxd's tables in schema public.
 * Domain-typed columns (sql_identifier, cardinal_number, character_data, yes_or_no) carry
 * their base types, as PostgreSQL describes them on the wire.
 */
import type { PgType } from '../../types/index.js';
import { derivedOid, OID, type CatalogSnapshot } from './snapshot.js';
import { type SystemRow, systemRelation } from './relation.js';
import { columnTypeInfo, defaultExpr, formatType } from './format.js';
import { builtinType } from './pg-type.js';
import { listViews } from './views.js';
import { addSystemRelations, SYSTEM_RELATIONS } from './pg-catalog.js';
import { INVISIBLE_RELATIONS } from './visibility.js';

const yesNo = (b: boolean) => (b ? 'YES' : 'NO');

function tablesRows(c: CatalogSnapshot): SystemRow[] {
  const base = { table_catalog: c.database, self_referencing_column_name: null, reference_generation: null, user_defined_type_catalog: null, user_defined_type_schema: null, user_defined_type_name: null, is_typed: 'NO', commit_action: null };
  const rows: SystemRow[] = c.tables.map((t) => ({ ...base, table_schema: 'public', table_name: t.name, table_type: 'BASE TABLE', is_insertable_into: 'YES' }));
  for (const v of listViews(c)) rows.push({ ...base, table_schema: 'public', table_name: v.name, table_type: 'VIEW', is_insertable_into: 'NO' });
  for (const r of SYSTEM_RELATIONS.values())
    rows.push({ ...base, table_schema: r.schema, table_name: r.name, table_type: r.schema === 'information_schema' ? 'VIEW' : 'BASE TABLE', is_insertable_into: r.schema === 'information_schema' ? 'NO' : 'YES' });
  return rows;
}

/** information_schema's data_type: format_type without typmod, arrays as ARRAY. */
function dataType(t: PgType, oid: number): string {
  if (t.id === 'array') return 'ARRAY';
  return formatType(oid, null) ?? '';
}

/** character_maximum_length, character_octet_length, numeric_precision, _radix, _scale, datetime_precision. */
function typeFacts(t: PgType): Record<string, number | null> {
  const none = { character_maximum_length: null, character_octet_length: null, numeric_precision: null, numeric_precision_radix: null, numeric_scale: null, datetime_precision: null };
  switch (t.id) {
    case 'text':
      return { ...none, character_octet_length: 1073741824 };
    case 'varchar':
    case 'bpchar':
      return { ...none, character_maximum_length: t.length ?? (t.id === 'bpchar' ? 1 : null), character_octet_length: t.length !== undefined ? t.length * 4 : 1073741824 };
    case 'int2':
      return { ...none, numeric_precision: 16, numeric_precision_radix: 2, numeric_scale: 0 };
    case 'int4':
      return { ...none, numeric_precision: 32, numeric_precision_radix: 2, numeric_scale: 0 };
    case 'int8':
      return { ...none, numeric_precision: 64, numeric_precision_radix: 2, numeric_scale: 0 };
    case 'float4':
      return { ...none, numeric_precision: 24, numeric_precision_radix: 2 };
    case 'float8':
      return { ...none, numeric_precision: 53, numeric_precision_radix: 2 };
    case 'numeric':
      return { ...none, numeric_precision: t.precision ?? null, numeric_precision_radix: 10, numeric_scale: t.precision !== undefined ? (t.scale ?? 0) : null };
    case 'date':
      return { ...none, datetime_precision: 0 };
    case 'timestamp':
    case 'timestamptz':
    case 'interval':
      return { ...none, datetime_precision: 6 };
    default:
      return none;
  }
}

function columnsRows(c: CatalogSnapshot): SystemRow[] {
  const rows: SystemRow[] = [];
  for (const t of c.tables)
    t.fields.forEach((f, i) => {
      const ti = columnTypeInfo(f.type);
      const text = f.type.id === 'text' || f.type.id === 'varchar' || f.type.id === 'bpchar';
      rows.push({
        table_catalog: c.database, table_schema: 'public', table_name: t.name, column_name: f.name, ordinal_position: i + 1, column_default: defaultExpr(f),
        is_nullable: yesNo(!f.notNull), data_type: dataType(f.type, ti.oid), ...typeFacts(f.type), interval_type: null, interval_precision: null,
        character_set_catalog: null, character_set_schema: null, character_set_name: null,
        collation_catalog: text ? c.database : null, collation_schema: text ? 'pg_catalog' : null, collation_name: text ? 'C' : null,
        domain_catalog: null, domain_schema: null, domain_name: null, udt_catalog: c.database, udt_schema: 'pg_catalog', udt_name: builtinType(ti.oid)?.name ?? null,
        scope_catalog: null, scope_schema: null, scope_name: null, maximum_cardinality: null, dtd_identifier: String(i + 1), is_self_referencing: 'NO',
        is_identity: 'NO', identity_generation: null, identity_start: null, identity_increment: null, identity_maximum: null, identity_minimum: null, identity_cycle: 'NO',
        is_generated: 'NEVER', generation_expression: null, is_updatable: 'YES',
      });
    });
  return rows;
}

function schemataRows(c: CatalogSnapshot): SystemRow[] {
  const owner = (oid: number) => c.roles.find((r) => r.oid === oid)?.name ?? 'pg_database_owner';
  return [
    ['pg_toast', OID.bootstrapRole],
    ['pg_catalog', OID.bootstrapRole],
    ['public', OID.pgDatabaseOwner],
    ['information_schema', OID.bootstrapRole],
  ].map(([n, o]) => ({ catalog_name: c.database, schema_name: n as string, schema_owner: o === OID.pgDatabaseOwner ? 'pg_database_owner' : owner(o as number), default_character_set_catalog: null, default_character_set_schema: null, default_character_set_name: null, sql_path: null }));
}

function viewsRows(c: CatalogSnapshot): SystemRow[] {
  return listViews(c).map((v) => ({ table_catalog: c.database, table_schema: 'public', table_name: v.name, view_definition: v.definition, check_option: 'NONE', is_updatable: 'NO', is_insertable_into: 'NO', is_trigger_updatable: 'NO', is_trigger_deletable: 'NO', is_trigger_insertable_into: 'NO' }));
}

/** NOT NULL columns are CHECK constraints here, named as PostgreSQL names them: `<nsp oid>_<rel oid>_<attnum>_not_null`. */
function tableConstraintsRows(c: CatalogSnapshot): SystemRow[] {
  const rows: SystemRow[] = [];
  for (const t of c.tables)
    t.fields.forEach((f, i) => {
      if (!f.notNull) return;
      rows.push({
        constraint_catalog: c.database, constraint_schema: 'public', constraint_name: `${OID.public}_${t.oid}_${i + 1}_not_null`, table_catalog: c.database, table_schema: 'public',
        table_name: t.name, constraint_type: 'CHECK', is_deferrable: 'NO', initially_deferred: 'NO', enforced: 'YES', nulls_distinct: null,
      });
    });
  return rows;
}

const rel = (name: string, rows: (c: CatalogSnapshot) => readonly SystemRow[]) => systemRelation('information_schema', name, derivedOid(`relation:information_schema.${name}`), rows, `information_schema.${name}`);

const RELATIONS = [
  rel('tables', tablesRows),
  rel('columns', columnsRows),
  rel('schemata', schemataRows),
  rel('views', viewsRows),
  rel('table_constraints', tableConstraintsRows),
  // paxd has no PRIMARY KEY, UNIQUE or FOREIGN KEY constraints yet (issue #21): no key columns.
  rel('key_column_usage', () => []),
];
addSystemRelations(RELATIONS);
for (const r of RELATIONS) INVISIBLE_RELATIONS.add(r.oid);
