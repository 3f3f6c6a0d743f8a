/**
 * PostgreSQL catalog queries that clients send and paxd answers from its own tables:
 * postgres_fdw's IMPORT FOREIGN SCHEMA (postgresImportForeignSchema in PostgreSQL 15's
 * contrib/postgres_fdw/postgres_fdw.c; docs/MIRROR.md "IMPORT FOREIGN SCHEMA instead").
 * Returns null for any other statement, which then goes to the engine.
 *
 * The statements are recognised from their parse trees, not their text, so whitespace and
 * the LIMIT TO / EXCEPT / import_collate / server-version variants all match:
 *
 *   SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'public'      → one row ('1'), or none
 *   SELECT relname, attname, format_type(atttypid, atttypmod), attnotnull, pg_get_expr(adbin, adrelid),
 *          attgenerated, collname, collnsp.nspname FROM pg_class c JOIN pg_namespace n … LEFT JOIN pg_attribute a …
 *    WHERE c.relkind IN (…) AND n.nspname = 'public' [AND NOT c.relispartition]
 *          [AND c.relname IN (…) | AND c.relname NOT IN (…)] ORDER BY c.relname, a.attnum
 *     → ["events", "id", "bigint", t, NULL, "", NULL, NULL], ["events", "kind", "text", f, NULL, "", "C", "pg_catalog"], …
 *
 * paxd's tables are all in schema `public`. Types are PostgreSQL's format_type() names and
 * string columns carry collation "C" (src/types/foreign.ts, the same mapping `paxd mirror`
 * declares), so an imported table equals a mirrored one.
 */
import type { Database } from '../../table/index.js';
import { type QueryResult, type ResultField, type AstFields, type AstNode, fieldsOf, kindOf, str } from '../../engine/index.js';
import { type Value, foreignColumn, unreachable } from '../../types/index.js';
// Only the type mapping, not the mirror's PostgreSQL client.

/** The schemas paxd has. */
const SCHEMAS = ['public'];

/** `sql` is one statement's text and `ast` its parse tree (../engine/parse.ts: parsed once, by the caller). */
export async function catalogQuery(db: Database, sql: string, ast: AstNode): Promise<QueryResult | null> {
  // Every statement of a simple Query passes here: keep the common case to one regex test.
  if (!/pg_namespace/i.test(sql)) return null;
  if (kindOf(ast) !== 'SelectStmt') return null;
  const s = fieldsOf(ast);
  const from = relationsOf((s.fromClause ?? []) as AstNode[]);
  if (from === null) return null;
  const where = conjuncts(s.whereClause as AstNode | undefined);
  if (from.length === 1 && from[0] === 'pg_namespace') return namespaceExists(s, where);
  if (from.includes('pg_class') && from.includes('pg_attribute') && from.includes('pg_namespace')) return importColumns(db, s, where);
  return null;
}

/** The relation names of a FROM list (through joins), or null if it has anything else. */
function relationsOf(from: readonly AstNode[]): string[] | null {
  const out: string[] = [];
  const walk = (n: AstNode): boolean => {
    const k = kindOf(n);
    const f = fieldsOf(n);
    if (k === 'RangeVar') {
      if (f.schemaname !== undefined && f.schemaname !== 'pg_catalog') return false;
      out.push(f.relname as string);
      return true;
    }
    if (k === 'JoinExpr') return walk(f.larg as AstNode) && walk(f.rarg as AstNode);
    return false;
  };
  return from.every(walk) ? out : null;
}

/** The AND-ed conditions of a WHERE clause. */
function conjuncts(w: AstNode | undefined): AstNode[] {
  if (w === undefined) return [];
  if (kindOf(w) === 'BoolExpr' && fieldsOf(w).boolop === 'AND_EXPR') return (fieldsOf(w).args as AstNode[]).flatMap((a) => conjuncts(a));
  return [w];
}

/** The last name of a column reference (`n.nspname` → nspname), or null. */
function columnName(n: AstNode | undefined): string | null {
  if (n === undefined || kindOf(n) !== 'ColumnRef') return null;
  const fields = fieldsOf(n).fields as AstNode[];
  const last = fields[fields.length - 1]!;
  return kindOf(last) === 'String' ? str(last) : null;
}

function stringConst(n: AstNode | undefined): string | null {
  if (n === undefined || kindOf(n) !== 'A_Const') return null;
  const f = fieldsOf(n);
  return f.sval !== undefined ? ((f.sval as AstFields).sval as string | undefined) ?? '' : null;
}

/** `col = 'x'` → x; `col IN ('a','b')` → [a, b] (negated for `<>`/NOT IN). */
interface Condition {
  readonly column: string;
  readonly values: readonly string[];
  readonly negated: boolean;
}

function conditionOf(n: AstNode): Condition | null {
  if (kindOf(n) !== 'A_Expr') return null;
  const f = fieldsOf(n);
  const column = columnName(f.lexpr as AstNode);
  if (column === null) return null;
  const op = str((f.name as AstNode[])[0]!);
  if (f.kind === 'AEXPR_OP' && (op === '=' || op === '<>')) {
    const v = stringConst(f.rexpr as AstNode);
    return v === null ? null : { column, values: [v], negated: op === '<>' };
  }
  if (f.kind === 'AEXPR_IN') {
    const items = fieldsOf(f.rexpr as AstNode).items as AstNode[];
    const values = items.map(stringConst);
    if (values.some((v) => v === null)) return null;
    return { column, values: values as string[], negated: op === '<>' };
  }
  return null;
}

/** Whether `name` passes every condition on `column` (conditions on other columns are ignored). */
function passes(where: readonly AstNode[], column: string, name: string): boolean {
  for (const w of where) {
    const c = conditionOf(w);
    if (c === null || c.column !== column) continue;
    if (c.values.includes(name) === c.negated) return false;
  }
  return true;
}

/** `SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = '…'`. */
function namespaceExists(s: AstFields, where: readonly AstNode[]): QueryResult | null {
  const targets = (s.targetList ?? []) as AstNode[];
  if (targets.length !== 1 || !where.some((w) => conditionOf(w)?.column === 'nspname')) return null;
  const val = fieldsOf(targets[0]!).val as AstNode;
  if (kindOf(val) !== 'A_Const' || fieldsOf(val).ival === undefined) return null;
  const one = ((fieldsOf(val).ival as AstFields).ival as number | undefined) ?? 0;
  const rows = SCHEMAS.filter((n) => passes(where, 'nspname', n)).map(() => [one]);
  return { command: 'SELECT', fields: [{ name: '?column?', type: { id: 'int4' } }], rows };
}

type ColumnKind = 'relname' | 'attname' | 'type' | 'notnull' | 'default' | 'generated' | 'collname' | 'collnsp' | 'null';

/** What one output column of the import query is, or null if paxd does not know it. */
function columnKind(target: AstNode): ColumnKind | null {
  const val = fieldsOf(target).val as AstNode;
  const k = kindOf(val);
  if (k === 'A_Const' && fieldsOf(val).isnull === true) return 'null';
  if (k === 'FuncCall') {
    const names = (fieldsOf(val).funcname as AstNode[]).map(str);
    const fn = names[names.length - 1];
    return fn === 'format_type' ? 'type' : fn === 'pg_get_expr' ? 'default' : null;
  }
  switch (columnName(val)) {
    case 'relname':
      return 'relname';
    case 'attname':
      return 'attname';
    case 'attnotnull':
      return 'notnull';
    case 'attgenerated':
      return 'generated';
    case 'collname':
      return 'collname';
    case 'nspname':
      return 'collnsp';
    default:
      return null;
  }
}

const FIELD_NAMES: Record<ColumnKind, ResultField> = {
  relname: { name: 'relname', type: { id: 'text' } },
  attname: { name: 'attname', type: { id: 'text' } },
  type: { name: 'format_type', type: { id: 'text' } },
  notnull: { name: 'attnotnull', type: { id: 'bool' } },
  default: { name: 'pg_get_expr', type: { id: 'text' } },
  generated: { name: 'attgenerated', type: { id: 'text' } },
  collname: { name: 'collname', type: { id: 'text' } },
  collnsp: { name: 'nspname', type: { id: 'text' } },
  null: { name: '?column?', type: { id: 'text' } },
};

/** postgres_fdw's column query: one row per (table, column) of the schema, by name then position. */
async function importColumns(db: Database, s: AstFields, where: readonly AstNode[]): Promise<QueryResult | null> {
  const kinds = ((s.targetList ?? []) as AstNode[]).map(columnKind);
  if (kinds.some((k) => k === null)) return null;
  const rows: Value[][] = [];
  if (SCHEMAS.some((n) => passes(where, 'nspname', n))) {
    const names = (await db.tables()).map((t) => t.name).filter((n) => passes(where, 'relname', n));
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) {
      let fields;
      try {
        fields = (await db.table(name)).fields;
      } catch {
        continue; // dropped since the listing
      }
      for (const f of fields) {
        const c = foreignColumn(f);
        rows.push(
          (kinds as ColumnKind[]).map((k): Value => {
            switch (k) {
              case 'relname':
                return name;
              case 'attname':
                return c.name;
              case 'type':
                return c.type;
              case 'notnull':
                return c.notNull;
              case 'default':
                // pg_get_expr's form of a constant default: a literal cast to the column type.
                return f.default === undefined ? null : `'${f.default.replace(/'/g, "''")}'::${c.type}`;
              case 'generated':
                return '';
              case 'collname':
                return c.collation;
              case 'collnsp':
                return c.collation === null ? null : 'pg_catalog';
              case 'null':
                return null;
              default:
                return unreachable(k);
            }
          }),
        );
      }
    }
  }
  return { command: 'SELECT', fields: (kinds as ColumnKind[]).map((k) => FIELD_NAMES[k]), rows };
}
