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
import type { Worker } from 'node:worker_threads';
import { setFlagsFromString } from 'node:v8';
import { loadModule, parseSync } from 'libpg-query';
import { CONST_LIST_MIN, compactConstLists } from './const-lists.js';
import { syntaxError } from './errors.js';
import { outOfMemory } from './memory.js';
import { PaxdError, SQLSTATE, stackDepthOf } from '../types/index.js';
import { startWorker } from '../runtime/index.js';
import type { ParseAnswer, ParseRequest } from './sql-parse-worker.js';

/**
 * Compiles the grammar's WebAssembly with V8's baseline compiler only. With the optimizing tier
 * on, V8 compiles the 1.1 MB module again in background threads, and a process cannot exit
 * before they finish: `paxd sql 'select 1'` spent about 100 ms after its output waiting for them.
 * The flag is restored once the module is compiled, so other WebAssembly (parquet-wasm) keeps
 * both tiers; parsing measured no slower (2,000 statements: 87–107 ms against 186–194 ms with the
 * background compile competing).
 */
async function loadGrammar(): Promise<void> {
  setFlagsFromString('--liftoff-only');
  try {
    await loadModule();
  } finally {
    setFlagsFromString('--no-liftoff-only');
  }
}

/** A parse-tree node: `{ SelectStmt: {...} }`, `{ ColumnRef: {...} }`, … */
export type AstNode = { readonly [kind: string]: AstFields };
/** The fields of a node, as libpg-query's JSON gives them. */
// biome-ignore lint/suspicious/noExplicitAny: libpg-query's JSON parse tree comes without types
export type AstFields = { readonly [field: string]: any };

let loaded: Promise<void> | null = null;

/** One statement of a query string, parsed once and handed along to whoever runs it. */
export interface ParsedStatement {
  /** The parse tree, deep-frozen: the tree is shared (pgwire caches it by text), never changed. */
  readonly ast: AstNode;
  /** The statement's own text (without the `;` that ends it). */
  readonly text: string;
  /** Characters of the query string before `text`. */
  readonly offset: number;
}

let parseHook: ((sql: string) => void) | null = null;

/**
 * A test hook: `hook` is called with every query string handed to libpg-query (null: none), so
 * a test can assert that a statement text is parsed once, not once per stage.
 */
export function onParse(hook: ((sql: string) => void) | null): void {
  parseHook = hook;
}

/**
 * Parses `sql` into its statements; a syntax error is 42601 with PostgreSQL's message and
 * position. This is paxd's only use of libpg-query: every front door (the engine's query and
 * prepare, pgwire's statement splitting, the catalog queries of IMPORT FOREIGN SCHEMA) parses
 * through it, once per statement text, and hands the tree along.
 *
 * `location` fields count characters, as PostgreSQL's positions do (libpg-query gives bytes),
 * from the start of the whole query string.
 */
export async function parseStatements(sql: string): Promise<ParsedStatement[]> {
  if (sql.trim() === '') return []; // libpg-query refuses an empty string; PostgreSQL answers EmptyQueryResponse
  loaded ??= loadGrammar();
  await loaded;
  let tree: { stmts?: { stmt: AstNode; stmt_location?: number; stmt_len?: number }[] };
  parseHook?.(sql);
  const chars = charOffsets(sql);
  try {
    tree = (sql.length > WORKER_PARSE_CHARS ? await parseInWorker(sql) : compactConstLists(parseSync(sql), CONST_LIST_MIN)) as typeof tree;
  } catch (e) {
    if (stackDepthOf(e) !== e) throw stackDepthOf(e); // the parse tree's JSON nested too deep for JSON.parse
    const details = (e as { sqlDetails?: { message: string; cursorPosition: number } }).sqlDetails;
    // PostgreSQL's palloc failing inside the WebAssembly parser (a 200 MB literal): 53200, not a
    // syntax error. (The grammar's own "memory exhausted", 10,000 nested parentheses, is 42601 there too.)
    if (details?.message === 'out of memory') throw outOfMemory(sql.length, 'MessageContext');
    // The one grammar error that is not 42601 in PostgreSQL (gram.y RoleId: CREATE ROLE public, none).
    if (details !== undefined && /^role name "[^"]*" is reserved$/.test(details.message)) throw new PaxdError('invalid_input', SQLSTATE.reserved_name, details.message);
    // gram.y's checks of a window frame's bounds (makeWindowFrame…) are 42P20, windowing errors.
    if (details !== undefined && /^frame (start|end|starting from) /.test(details.message)) throw new PaxdError('invalid_input', SQLSTATE.windowing_error, details.message);
    throw syntaxError(details?.message ?? (e as Error).message, details === undefined ? undefined : toChar(chars, details.cursorPosition) + 1);
  }
  const bytes = chars === null ? null : Buffer.from(sql, 'utf8');
  return (tree.stmts ?? []).map((s) => {
    const start = s.stmt_location ?? 0;
    const end = s.stmt_len === undefined || s.stmt_len === 0 ? undefined : start + s.stmt_len;
    const text = bytes === null ? sql.slice(start, end) : bytes.toString('utf8', start, end ?? bytes.byteLength);
    const parsed = Object.freeze({ ast: freezeTree(s.stmt, chars), text, offset: toChar(chars, start) });
    SOURCES.set(parsed.ast, parsed);
    return parsed;
  });
}

/** Each parse tree's statement, for the statements that keep their text (CREATE VIEW, src/engine/statements/view.ts). */
const SOURCES = new WeakMap<AstNode, ParsedStatement>();

/** The statement `ast` was parsed from (its text, and the offset its `location`s count from), or null. */
export function sourceOf(ast: AstNode): ParsedStatement | null {
  return SOURCES.get(ast) ?? null;
}

/**
 * Query strings longer than this are parsed on a worker thread (./sql-parse-worker.ts): libpg-query's parse is one
 * synchronous call, about 0.8 s for a 100,000-value IN list (0.6 MB) and minutes for a 200 MB
 * text, during which the event loop that serves every other session would stand still (issue
 * #18). There is no length limit of paxd's own: PostgreSQL's is its 1 GB message limit
 * (PQ_LARGE_MESSAGE_LIMIT, 08P01 on the wire, src/pgwire), and what a parse needs beyond
 * memory fails with 53200, not the process.
 */
export const WORKER_PARSE_CHARS = 64 * 1024;

/**
 * Lists of more constants than this travel compactly (see ConstList): an IN list, an ARRAY[…]
 * or a VALUES of 100,000 plain constants was 300,000 objects of parse tree, 5–8 MB of JSON that
 * the main thread read, froze and walked after the worker's parse (tens to hundreds of ms
 * there, every other session waiting; issue #18). The binder's IN list binds one straight from
 * the arrays (bind/in-list.ts); anything else asks `constNodes` for PostgreSQL's nodes.
 */
export { CONST_LIST_MIN } from './const-lists.js';

/**
 * A run of plain constants (`A_Const` nodes: no cast, no bit string) in column form, in the
 * place of the nodes, as `{ PaxdConsts: ConstList }`:
 *
 *   x IN (1, 'a', NULL, 2.5)     rexpr:       { PaxdConsts: { kinds: 'isnf', values: [1, 'a', null, '2.5'], locations: [6, 9, 14, 20] } }
 *   ARRAY[1, 2, …]               elements:    { PaxdConsts: { kinds: 'ii…', … } }
 *   VALUES (1, 'a'), (2, 'b') …  valuesLists: { PaxdConsts: { kinds: 'isis…', width: 2, … } }   (row by row)
 *
 * `kinds` has one letter per constant: `i` an integer (ival, a number), `f` a numeric literal
 * (fval, its text), `s` a string (sval), `b` a boolean, `n` NULL. `locations` are those of the
 * nodes (characters from the start of the query string, as every location).
 */
export interface ConstList {
  readonly kinds: string;
  readonly values: readonly (number | string | boolean | null)[];
  readonly locations: readonly number[];
  /** For the rows of a VALUES: constants per row. */
  readonly width?: number;
}

/** The ConstList of `x` (a field of a node), or null when it holds nodes. */
export function constsOf(x: unknown): ConstList | null {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return null;
  return ((x as { PaxdConsts?: ConstList }).PaxdConsts ?? null) as ConstList | null;
}

/**
 * The nodes of a list field as PostgreSQL's parse tree has them: `items` as given, or the
 * A_Const nodes of a ConstList (built here, for the binders that take them one by one).
 *
 *   constNodes(fieldsOf(inExpr).rexpr)   // [{ A_Const: { ival: { ival: 1 }, location: 6 } }, …]
 */
export function constNodes(items: unknown): AstNode[] {
  const c = constsOf(items);
  if (c === null) return items as AstNode[];
  // Fresh nodes per call, so not frozen: no one else holds them.
  const out: AstNode[] = new Array(c.kinds.length);
  for (let i = 0; i < out.length; i++) out[i] = { A_Const: constFields(c.kinds[i]!, c.values[i]!, c.locations[i]!) };
  return out;
}

/** The rows of a VALUES (`valuesLists`: nodes, or a ConstList) as PostgreSQL's `List` nodes. */
export function valuesListNodes(valuesLists: unknown): AstNode[] {
  const c = constsOf(valuesLists);
  if (c === null) return valuesLists as AstNode[];
  const all = constNodes(valuesLists);
  const w = c.width ?? 1;
  const rows: AstNode[] = [];
  for (let i = 0; i < all.length; i += w) rows.push({ List: { items: all.slice(i, i + w) } });
  return rows;
}

/** An A_Const's fields for one constant of a ConstList, as libpg-query writes them (defaults left out). */
function constFields(kind: string, v: number | string | boolean | null, location: number): AstFields {
  switch (kind) {
    case 'i':
      return { ival: v === 0 ? {} : { ival: v }, location };
    case 'f':
      return { fval: { fval: v }, location };
    case 's':
      return { sval: v === '' ? {} : { sval: v }, location };
    case 'b':
      return { boolval: v === true ? { boolval: true } : {}, location };
    default:
      return { isnull: true, location };
  }
}


let parser: { worker: Worker; pending: Map<number, (a: ParseAnswer) => void>; next: number } | null = null;

function parserWorker(): NonNullable<typeof parser> {
  if (parser !== null) return parser;
  const worker = startWorker(new URL('./sql-parse-worker.js', import.meta.url));
  const p = { worker, pending: new Map<number, (a: ParseAnswer) => void>(), next: 0 };
  worker.unref();
  worker.on('message', (a: ParseAnswer) => {
    p.pending.get(a.id)?.(a);
    p.pending.delete(a.id);
    if (p.pending.size === 0) worker.unref();
  });
  // A worker that died (out of memory in the parse of a huge text) fails what it held; the next parse starts another.
  const lost = (why: string) => {
    if (parser === p) parser = null;
    for (const [id, done] of p.pending) done({ id, ok: false, name: 'WorkerLost', message: why });
    p.pending.clear();
  };
  worker.on('error', (e) => lost(e.message));
  worker.on('exit', (code) => lost(`the parser thread exited with ${code}`));
  parser = p;
  return p;
}

async function parseInWorker(sql: string): Promise<unknown> {
  const p = parserWorker();
  const id = p.next++;
  const a = await new Promise<ParseAnswer>((resolve) => {
    p.pending.set(id, resolve);
    p.worker.ref();
    p.worker.postMessage({ id, sql } satisfies ParseRequest);
  });
  if (a.ok) return JSON.parse(a.json!);
  if (a.name === 'RangeError') {
    if (/call stack/.test(a.message ?? '')) throw new RangeError(a.message);
    throw outOfMemory(sql.length, 'MessageContext');
  }
  // libpg-query answers "Parse result is null" when its WebAssembly memory ran out (a 200 MB literal).
  if (a.name === 'WorkerLost' || (a.sqlDetails === undefined && /memory|allocat|out of bounds|abort|result is null/i.test(a.message ?? ''))) throw outOfMemory(sql.length, 'MessageContext');
  throw Object.assign(new Error(a.message), { sqlDetails: a.sqlDetails });
}

/** Parses `sql` into the trees of its statements (see parseStatements). */
export async function parseSql(sql: string): Promise<AstNode[]> {
  return (await parseStatements(sql)).map((s) => s.ast);
}

/** For a string with non-ASCII characters, the character offset of every byte offset; else null. */
function charOffsets(sql: string): Int32Array | null {
  const bytes = Buffer.byteLength(sql, 'utf8');
  if (bytes === sql.length) return null; // ASCII only: bytes are characters
  const map = new Int32Array(bytes + 1);
  let b = 0;
  let c = 0;
  for (const ch of sql) {
    const n = Buffer.byteLength(ch, 'utf8');
    for (let k = 0; k < n; k++) map[b + k] = c;
    b += n;
    c++;
  }
  map[b] = c;
  return map;
}

function toChar(chars: Int32Array | null, byteOffset: number): number {
  return chars === null || byteOffset < 0 ? byteOffset : (chars[Math.min(byteOffset, chars.length - 1)] ?? byteOffset);
}

/**
 * Freezes every node of a tree, turning its byte locations into character offsets on the way.
 * Iterative: a tree thousands of levels deep (2,000 nested coalesce) must not overflow here.
 */
function freezeTree<T>(root: T, chars: Int32Array | null): T {
  const todo: unknown[] = [root];
  for (let n = todo.pop(); n !== undefined; n = todo.pop()) {
    if (typeof n !== 'object' || n === null) continue;
    if (Array.isArray(n)) for (const x of n) todo.push(x);
    else if ((n as { PaxdConsts?: unknown }).PaxdConsts !== undefined) {
      // A ConstList: its byte locations made characters, no element pushed. Its arrays become
      // invisible to the binder's generic tree walks (Object.values, for…in: the stages that
      // look for columns, subqueries or set-returning calls, which constants hold none of),
      // which would otherwise step through 100,000 values each; its JSON (GROUP BY's matching
      // of equal expressions by their text without locations) stays its constants.
      const c = (n as { PaxdConsts: { kinds: string; width?: number; values: unknown[]; locations: number[] } }).PaxdConsts;
      if (chars !== null) for (let i = 0; i < c.locations.length; i++) c.locations[i] = toChar(chars, c.locations[i]!);
      const { kinds, width, values, locations } = c;
      Object.defineProperty(c, 'values', { value: Object.freeze(values), enumerable: false });
      Object.defineProperty(c, 'locations', { value: Object.freeze(locations), enumerable: false });
      Object.defineProperty(c, 'toJSON', { value: () => ({ kinds, values, ...(width !== undefined ? { width } : {}) }), enumerable: false });
      Object.freeze(c);
    } else {
      const o = n as Record<string, unknown>;
      for (const k in o) {
        const v = o[k];
        if (k === 'location' && chars !== null && typeof v === 'number') o[k] = toChar(chars, v);
        else todo.push(v);
      }
    }
    Object.freeze(n);
  }
  return root;
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

/**
 * Calls `visit` on every object of a parse tree (`x`, its arrays and nested nodes), depth
 * first, except below constants: an A_Const (or a ConstList of them) holds no node the binder
 * looks for, and a 100,000-element IN list is 100,000 of them. A visit that returns false skips what is below
 * that object.
 *
 *   walkAst(stmt, (o) => { if (o['TypeCast'] !== undefined) casts.push(o['TypeCast']); });
 */
export function walkAst(x: unknown, visit: (o: Readonly<Record<string, unknown>>) => unknown): void {
  if (x === null || typeof x !== 'object') return;
  if (Array.isArray(x)) {
    for (const v of x) walkAst(v, visit);
    return;
  }
  const o = x as Record<string, unknown>;
  if (o['A_Const'] !== undefined || o['PaxdConsts'] !== undefined || visit(o) === false) return;
  for (const v of Object.values(o)) walkAst(v, visit);
}
