/**
 * Parsing with libpg-query: PostgreSQL's own grammar (17) compiled to WebAssembly, so paxd
 * accepts exactly what PostgreSQL accepts and gets its parse tree as JSON:
 *
 *   await parseSql('SELECT 1')   // [{ SelectStmt: { targetList: [...], ... } }]
 *
 * The tree is untyped JSON here; `node`/`kindOf`/`str` give the binder uniform access. Every
 * node is a one-key object `{ Kind: fields }`; fields that PostgreSQL leaves at their default
 * (false, 0, empty lists) are absent.
 */
import { loadModule, parseSync } from 'libpg-query';
import { syntaxError } from './errors.js';

/** A parse-tree node: `{ SelectStmt: {...} }`, `{ ColumnRef: {...} }`, … */
export type AstNode = { readonly [kind: string]: AstFields };
/** The fields of a node, as libpg-query's JSON gives them. */
// biome-ignore lint/suspicious/noExplicitAny: libpg-query's JSON parse tree comes without types
export type AstFields = { readonly [field: string]: any };

let loaded: Promise<void> | null = null;

/** Parses `sql` into its statements; a syntax error is 42601 with PostgreSQL's message and position. */
export async function parseSql(sql: string): Promise<AstNode[]> {
  loaded ??= loadModule();
  await loaded;
  let tree: { stmts?: { stmt: AstNode }[] };
  try {
    tree = parseSync(sql) as typeof tree;
  } catch (e) {
    const details = (e as { sqlDetails?: { message: string; cursorPosition: number } }).sqlDetails;
    throw syntaxError(details?.message ?? (e as Error).message, details === undefined ? undefined : details.cursorPosition + 1);
  }
  return (tree.stmts ?? []).map((s) => s.stmt);
}

/** The one kind of a node: `kindOf({ ColumnRef: … })` is 'ColumnRef'. */
export function kindOf(n: AstNode): string {
  const k = Object.keys(n);
  if (k.length !== 1) throw new Error(`parse tree node with ${k.length} kinds: ${k.join(', ')}`);
  return k[0]!;
}

/** The fields of a node whatever its kind. */
export function fieldsOf(n: AstNode): AstFields {
  return n[kindOf(n)]!;
}

/** The string of a `{ String: { sval } }` node (names, operators). */
export function str(n: AstNode): string {
  const s = (n as { String?: { sval?: string } }).String;
  if (s === undefined) throw new Error(`expected a String node, got ${kindOf(n)}`);
  return s.sval ?? '';
}

/** A node's location (0-based offset into the statement, -1 unknown). */
export function locationOf(n: AstNode): number | undefined {
  const f = fieldsOf(n);
  return typeof f.location === 'number' ? f.location : undefined;
}
