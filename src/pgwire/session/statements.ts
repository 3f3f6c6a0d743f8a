/**
 * Splits a query string into statements with the engine's parser (../engine/parse.ts, the one
 * user of libpg-query: PostgreSQL's own grammar) and sorts out the ones the session answers
 * itself (SET, SHOW, RESET, transaction control) from those the engine runs. Each statement
 * keeps its parse tree, so the engine binds it without parsing the text again. A syntax error
 * anywhere fails the whole string before anything runs, as in PostgreSQL.
 *
 *   await splitStatements("SET datestyle = ISO; SELECT 1")
 *   // [{ kind: 'set', name: 'datestyle', value: 'ISO', text: 'SET datestyle = ISO', offset: 0 },
 *   //  { kind: 'engine', node: 'SelectStmt', ast: { SelectStmt: … }, text: ' SELECT 1', offset: 20 }]
 */
import { type AstNode, parseStatements } from '../../engine/index.js';
import { INTERVAL_RANGE, featureNotSupported, formatInterval, makeInterval, parseInterval } from '../../types/index.js';

// biome-ignore lint/suspicious/noExplicitAny: libpg-query's JSON parse tree comes without types
type Json = { readonly [k: string]: any };

export type TransactionVerb = 'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollback-to' | 'unsupported';

/** FETCH/MOVE directions as PostgreSQL's FetchStmt has them. */
export type FetchDirection = 'forward' | 'backward' | 'absolute' | 'relative';

/** COPY's options (https://www.postgresql.org/docs/15/sql-copy.html), defaults applied by ./copy.ts. */
export interface CopyOptionsSpec {
  readonly format?: string;
  readonly header?: string;
  readonly delimiter?: string;
  readonly null?: string;
  readonly quote?: string;
  readonly escape?: string;
  /** FORCE_NULL / FORCE_NOT_NULL column lists (CSV only). */
  readonly force_null?: readonly string[];
  readonly force_not_null?: readonly string[];
}

export type Statement = (
  | {
      readonly kind: 'engine';
      /** The parse tree's node kind: 'SelectStmt', 'InsertStmt', 'CreateStmt', … */
      readonly node: string;
      /** True for a plain SELECT: no side effects, so it may be run just to describe its fields. */
      readonly pureQuery: boolean;
      /** The parse tree, handed to the engine (positions count from the query string's start). */
      readonly ast: AstNode;
    }
  /** `local`: SET LOCAL, which lasts until the end of the transaction. */
  | { readonly kind: 'set'; readonly name: string; readonly value: string; readonly local: boolean }
  | { readonly kind: 'reset'; readonly name: string; readonly tag: 'SET' | 'RESET'; readonly local: boolean }
  | { readonly kind: 'reset-all' }
  | { readonly kind: 'show'; readonly name: string }
  | { readonly kind: 'transaction'; readonly verb: TransactionVerb; readonly tag: string; readonly savepoint?: string }
  | {
      readonly kind: 'declare';
      readonly name: string;
      readonly binary: boolean;
      /** True for SCROLL, false for NO SCROLL, null when neither was said. */
      readonly scroll: boolean | null;
      readonly hold: boolean;
      /** The cursor's query: its text, and its parse tree, which the engine runs. */
      readonly query: string;
      readonly queryAst: AstNode;
    }
  | { readonly kind: 'fetch'; readonly name: string; readonly move: boolean; readonly direction: FetchDirection; readonly count: number }
  /** CLOSE name, or CLOSE ALL (name null). */
  | { readonly kind: 'close'; readonly name: string | null }
  /** DEALLOCATE name, or DEALLOCATE ALL (name null). */
  | { readonly kind: 'deallocate'; readonly name: string | null }
  | { readonly kind: 'discard'; readonly what: string }
  | {
      readonly kind: 'copy';
      readonly direction: 'from' | 'to';
      /** The table, or null for COPY (query) TO. */
      readonly table: string | null;
      readonly columns: readonly string[] | null;
      /** The query of COPY (query) TO: its text and the parse tree the engine runs. */
      readonly query: string | null;
      readonly queryAst: AstNode | null;
      /** False for a file name or PROGRAM: paxd copies only through the connection. */
      readonly stdio: boolean;
      /** COPY … FROM/TO PROGRAM. */
      readonly program: boolean;
      readonly options: CopyOptionsSpec;
    }
  | { readonly kind: 'unsupported'; readonly feature: string }
) & {
  /** The statement's own text, as the engine receives it. */
  readonly text: string;
  /** Characters of the query string before `text`. */
  readonly offset: number;
};

/**
 * Query strings split before, by their exact text (least recently used first out). Clients
 * repeat the same few texts (postgres_fdw: `FETCH 100 FROM c1`, `CLOSE c1`, `START
 * TRANSACTION …`, its DECLAREs), and parsing one costs a trip into libpg-query. The statements
 * are frozen: every caller shares them.
 */
const SPLIT_CACHE_SIZE = 256;
/** Longer texts (a COPY's or an INSERT's data, say) are not worth keeping. */
const SPLIT_CACHE_MAX_TEXT = 4096;
const splitCache = new Map<string, readonly Statement[]>();

export async function splitStatements(sql: string): Promise<readonly Statement[]> {
  const hit = splitCached(sql);
  if (hit !== undefined) return hit;
  const stmts = Object.freeze((await split(sql)).map((s) => Object.freeze(s)));
  if (sql.length <= SPLIT_CACHE_MAX_TEXT) {
    if (splitCache.size >= SPLIT_CACHE_SIZE) splitCache.delete(splitCache.keys().next().value!);
    splitCache.set(sql, stmts);
  }
  return stmts;
}

/** The statements of a query string split before (see splitStatements), without waiting. */
export function splitCached(sql: string): readonly Statement[] | undefined {
  const hit = splitCache.get(sql);
  if (hit !== undefined) {
    // Map keeps insertion order: re-inserting makes this the most recently used.
    splitCache.delete(sql);
    splitCache.set(sql, hit);
  }
  return hit;
}

async function split(sql: string): Promise<Statement[]> {
  return (await parseStatements(sql)).map(({ ast, text, offset }) => {
    const s = ast as Json;
    if (s.DeclareCursorStmt !== undefined) return { ...classifyDeclare(s.DeclareCursorStmt, text), text, offset };
    if (s.CopyStmt !== undefined) return { ...classifyCopy(s.CopyStmt, text), text, offset };
    return { ...classify(ast), text, offset };
  });
}

type Kind = Statement extends infer S ? (S extends { text: string } ? Omit<S, 'text' | 'offset'> : never) : never;

function classify(ast: AstNode): Kind {
  const stmt = ast as Json;
  if (stmt.VariableSetStmt !== undefined) return classifySet(stmt.VariableSetStmt);
  if (stmt.VariableShowStmt !== undefined) return { kind: 'show', name: stmt.VariableShowStmt.name as string };
  if (stmt.TransactionStmt !== undefined) return classifyTransaction(stmt.TransactionStmt);
  if (stmt.FetchStmt !== undefined) return classifyFetch(stmt.FetchStmt);
  if (stmt.ClosePortalStmt !== undefined) return { kind: 'close', name: (stmt.ClosePortalStmt.portalname as string | undefined) ?? null };
  if (stmt.DeallocateStmt !== undefined) return { kind: 'deallocate', name: stmt.DeallocateStmt.isall === true ? null : (stmt.DeallocateStmt.name as string) };
  if (stmt.DiscardStmt !== undefined) return { kind: 'discard', what: String(stmt.DiscardStmt.target).replace(/^DISCARD_/, '') };
  const node = Object.keys(stmt)[0] ?? '';
  return { kind: 'engine', node, pureQuery: node === 'SelectStmt' && stmt.SelectStmt.intoClause === undefined, ast };
}

function classifySet(s: Json): Kind {
  const name = (s.name ?? '') as string;
  const local = s.is_local === true;
  switch (s.kind as string) {
    case 'VAR_SET_VALUE':
      return { kind: 'set', name, value: ((s.args ?? []) as Json[]).map(constText).join(', '), local };
    case 'VAR_SET_DEFAULT':
      return { kind: 'reset', name, tag: 'SET', local }; // SET x TO DEFAULT, SET TIME ZONE LOCAL
    case 'VAR_RESET':
      return { kind: 'reset', name, tag: 'RESET', local: false };
    case 'VAR_RESET_ALL':
      return { kind: 'reset-all' };
    case 'VAR_SET_MULTI':
      // SET TRANSACTION … / SET SESSION CHARACTERISTICS AS TRANSACTION …: paxd always gives a
      // transaction one snapshot, which satisfies every isolation level a client asks for. The
      // session's characteristics are default_transaction_isolation (pgjdbc's setTransactionIsolation).
      return {
        kind: 'set',
        name: s.name === 'SESSION CHARACTERISTICS' && hasIsolation(s.args ?? []) ? 'default_transaction_isolation' : 'transaction_isolation',
        value: isolationOf(s.args ?? []),
        local: false,
      };
    default:
      return { kind: 'unsupported', feature: `SET ${String(s.kind)}` };
  }
}

function hasIsolation(args: Json[]): boolean {
  return args.some((a) => a.DefElem?.defname === 'transaction_isolation');
}

function isolationOf(args: Json[]): string {
  for (const a of args) if (a.DefElem?.defname === 'transaction_isolation') return constText(a.DefElem.arg);
  return 'repeatable read';
}

/** A SET argument as PostgreSQL's flatten_set_variable_args sees it: the constant's text. */
function constText(n: Json): string {
  const cast = n.TypeCast;
  if (cast !== undefined && ((cast.typeName?.names ?? []) as Json[]).some((x) => x.String?.sval === 'interval') && cast.arg?.A_Const?.sval !== undefined) {
    // SET TIME ZONE INTERVAL '+02:00' HOUR TO MINUTE: the value through interval_in with its
    // typmod and back, as flatten_set_variable_args passes it on ("INTERVAL '02:00:00'").
    const mods = ((cast.typeName.typmods ?? []) as Json[]).map((m) => Number(m.A_Const?.ival?.ival ?? 0));
    const p = parseInterval(String(cast.arg.A_Const.sval.sval ?? ''), mods[0] ?? INTERVAL_RANGE.FULL, mods[1] ?? null);
    return `INTERVAL '${formatInterval(makeInterval(p.months, p.days, p.us))}'`;
  }
  const c = n.A_Const;
  if (c === undefined) throw featureNotSupported('SET with an expression value');
  if (c.ival !== undefined) return String(c.ival.ival ?? 0);
  if (c.fval !== undefined) return String(c.fval.fval);
  if (c.sval !== undefined) return String(c.sval.sval ?? '');
  if (c.boolval !== undefined) return c.boolval.boolval === true ? 'on' : 'off';
  throw featureNotSupported('SET TO NULL');
}

function classifyTransaction(t: Json): Kind {
  switch (t.kind as string) {
    case 'TRANS_STMT_BEGIN':
      return { kind: 'transaction', verb: 'begin', tag: 'BEGIN' };
    case 'TRANS_STMT_START':
      return { kind: 'transaction', verb: 'begin', tag: 'START TRANSACTION' };
    case 'TRANS_STMT_COMMIT':
      if (t.chain === true) return { kind: 'transaction', verb: 'unsupported', tag: 'COMMIT AND CHAIN' };
      return { kind: 'transaction', verb: 'commit', tag: 'COMMIT' };
    case 'TRANS_STMT_ROLLBACK':
      if (t.chain === true) return { kind: 'transaction', verb: 'unsupported', tag: 'ROLLBACK AND CHAIN' };
      return { kind: 'transaction', verb: 'rollback', tag: 'ROLLBACK' };
    case 'TRANS_STMT_SAVEPOINT':
      return { kind: 'transaction', verb: 'savepoint', tag: 'SAVEPOINT', savepoint: t.savepoint_name as string };
    case 'TRANS_STMT_RELEASE':
      return { kind: 'transaction', verb: 'release', tag: 'RELEASE', savepoint: t.savepoint_name as string };
    case 'TRANS_STMT_ROLLBACK_TO':
      return { kind: 'transaction', verb: 'rollback-to', tag: 'ROLLBACK', savepoint: t.savepoint_name as string };
    default:
      return { kind: 'transaction', verb: 'unsupported', tag: String(t.kind).replace(/^TRANS_STMT_/, '').replace(/_/g, ' ') };
  }
}

/** PostgreSQL's FETCH_ALL: libpg-query gives FETCH ALL as the largest int32 (LONG_MAX in the server). */
export const FETCH_ALL = 2147483647;

function classifyFetch(f: Json): Kind {
  const direction = ({ FETCH_FORWARD: 'forward', FETCH_BACKWARD: 'backward', FETCH_ABSOLUTE: 'absolute', FETCH_RELATIVE: 'relative' } as const)[
    f.direction as 'FETCH_FORWARD'
  ];
  return { kind: 'fetch', name: f.portalname as string, move: f.ismove === true, direction: direction ?? 'forward', count: Number(f.howMany ?? 0) };
}

/** parsenodes.h CURSOR_OPT_* bits of DeclareCursorStmt.options. */
const CURSOR_OPT = { binary: 0x1, scroll: 0x2, noScroll: 0x4, hold: 0x20 } as const;

function classifyDeclare(d: Json, text: string): Kind {
  const options = Number(d.options ?? 0);
  // The query is what follows `CURSOR [WITH[OUT] HOLD] FOR` (libpg-query has no deparser).
  const m = /\bCURSOR\s+(?:(?:WITH|WITHOUT)\s+HOLD\s+)?FOR\b/i.exec(text);
  if (m === null) return { kind: 'unsupported', feature: 'this form of DECLARE CURSOR' };
  return {
    kind: 'declare',
    name: d.portalname as string,
    binary: (options & CURSOR_OPT.binary) !== 0,
    scroll: (options & CURSOR_OPT.scroll) !== 0 ? true : (options & CURSOR_OPT.noScroll) !== 0 ? false : null,
    hold: (options & CURSOR_OPT.hold) !== 0,
    query: text.slice(m.index + m[0].length),
    queryAst: d.query as AstNode,
  };
}

function classifyCopy(c: Json, text: string): Kind {
  const options: Record<string, string | string[]> = {};
  for (const o of (c.options ?? []) as Json[]) {
    const d = o.DefElem;
    const a = d.arg;
    if (a?.List !== undefined) {
      // FORCE_NULL (a, b): a list of column names
      options[d.defname as string] = ((a.List.items ?? []) as Json[]).map((i) => String(i.String?.sval ?? ''));
      continue;
    }
    const v = a === undefined ? 'true' : a.String !== undefined ? String(a.String.sval ?? '') : a.Boolean !== undefined ? (a.Boolean.boolval === true ? 'true' : 'false') : a.Integer !== undefined ? String(a.Integer.ival ?? 0) : '';
    options[d.defname as string] = v;
  }
  const known = new Set(['format', 'header', 'delimiter', 'null', 'quote', 'escape', 'force_null', 'force_not_null']);
  for (const k of ['force_null', 'force_not_null']) if (options[k] !== undefined && !Array.isArray(options[k])) return { kind: 'unsupported', feature: `COPY option "${k}" without a column list` };
  for (const k of Object.keys(options)) if (!known.has(k)) return { kind: 'unsupported', feature: `COPY option "${k}"` };
  const query = c.query === undefined ? null : parenthesized(text);
  if (c.query !== undefined && query === null) return { kind: 'unsupported', feature: 'this form of COPY (query)' };
  return {
    kind: 'copy',
    direction: c.is_from === true ? 'from' : 'to',
    table: c.relation === undefined ? null : (c.relation.relname as string),
    columns: c.attlist === undefined ? null : (c.attlist as Json[]).map((a) => a.String.sval as string),
    query,
    queryAst: query === null ? null : (c.query as AstNode),
    stdio: c.filename === undefined && c.is_program !== true,
    program: c.is_program === true,
    options,
  };
}

/** The text inside the first top-level parentheses of `text` (quotes respected), or null. */
function parenthesized(text: string): string | null {
  const open = text.indexOf('(');
  if (open < 0) return null;
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return null;
}
