/**
 * Splits a query string into statements with PostgreSQL's own grammar (libpg-query) and sorts
 * out the ones the session answers itself (SET, SHOW, RESET, transaction control) from those
 * the engine runs. A syntax error anywhere fails the whole string before anything runs, as in
 * PostgreSQL.
 *
 *   await splitStatements("SET datestyle = ISO; SELECT 1")
 *   // [{ kind: 'set', name: 'datestyle', value: 'ISO', text: 'SET datestyle = ISO', offset: 0 },
 *   //  { kind: 'engine', text: ' SELECT 1', offset: 20 }]
 */
import { loadModule, parseSync } from 'libpg-query';
import { SqlError } from '../engine/index.js';
import { SQLSTATE } from '../types/index.js';

type Json = { readonly [k: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

export type TransactionVerb = 'begin' | 'commit' | 'rollback' | 'unsupported';

export type Statement = (
  | {
      readonly kind: 'engine';
      /** The parse tree's node kind: 'SelectStmt', 'InsertStmt', 'CreateStmt', … */
      readonly node: string;
      /** True for a plain SELECT: no side effects, so it may be run just to describe its fields. */
      readonly pureQuery: boolean;
    }
  | { readonly kind: 'set'; readonly name: string; readonly value: string }
  | { readonly kind: 'reset'; readonly name: string }
  | { readonly kind: 'reset-all' }
  | { readonly kind: 'show'; readonly name: string }
  | { readonly kind: 'transaction'; readonly verb: TransactionVerb; readonly tag: string }
  | { readonly kind: 'unsupported'; readonly feature: string }
) & {
  /** The statement's own text, as the engine receives it. */
  readonly text: string;
  /** Characters of the query string before `text`, added to engine error positions. */
  readonly offset: number;
};

let loaded: Promise<void> | null = null;

export async function splitStatements(sql: string): Promise<Statement[]> {
  if (sql.trim() === '') return []; // libpg-query refuses an empty string; PostgreSQL answers EmptyQueryResponse
  loaded ??= loadModule();
  await loaded;
  let tree: { stmts?: { stmt: Json; stmt_location?: number; stmt_len?: number }[] };
  try {
    tree = parseSync(sql) as typeof tree;
  } catch (e) {
    const d = (e as { sqlDetails?: { message: string; cursorPosition: number } }).sqlDetails;
    throw new SqlError('invalid_input', SQLSTATE.syntax_error, d?.message ?? (e as Error).message, d === undefined ? undefined : charOffset(sql, d.cursorPosition) + 1);
  }
  const bytes = Buffer.from(sql, 'utf8');
  return (tree.stmts ?? []).map((s) => {
    const start = s.stmt_location ?? 0;
    const end = s.stmt_len === undefined || s.stmt_len === 0 ? bytes.byteLength : start + s.stmt_len;
    const text = bytes.toString('utf8', start, end);
    return { ...classify(s.stmt), text, offset: Array.from(bytes.toString('utf8', 0, start)).length };
  });
}

/** libpg-query reports byte offsets; PostgreSQL positions count characters. */
function charOffset(sql: string, byteOffset: number): number {
  return Array.from(Buffer.from(sql, 'utf8').toString('utf8', 0, byteOffset)).length;
}

type Kind = Statement extends infer S ? (S extends { text: string } ? Omit<S, 'text' | 'offset'> : never) : never;

function classify(stmt: Json): Kind {
  if (stmt.VariableSetStmt !== undefined) return classifySet(stmt.VariableSetStmt);
  if (stmt.VariableShowStmt !== undefined) return { kind: 'show', name: stmt.VariableShowStmt.name as string };
  if (stmt.TransactionStmt !== undefined) return classifyTransaction(stmt.TransactionStmt);
  const node = Object.keys(stmt)[0] ?? '';
  return { kind: 'engine', node, pureQuery: node === 'SelectStmt' && stmt.SelectStmt.intoClause === undefined };
}

function classifySet(s: Json): Kind {
  const name = (s.name ?? '') as string;
  switch (s.kind as string) {
    case 'VAR_SET_VALUE':
      return { kind: 'set', name, value: ((s.args ?? []) as Json[]).map(constText).join(', ') };
    case 'VAR_SET_DEFAULT':
    case 'VAR_RESET':
      return { kind: 'reset', name };
    case 'VAR_RESET_ALL':
      return { kind: 'reset-all' };
    case 'VAR_SET_MULTI':
      // SET TRANSACTION … / SET SESSION CHARACTERISTICS AS TRANSACTION …: paxd always gives a
      // transaction one snapshot, which satisfies every isolation level a client asks for.
      return { kind: 'set', name: 'transaction_isolation', value: isolationOf(s.args ?? []) };
    default:
      return { kind: 'unsupported', feature: `SET ${String(s.kind)}` };
  }
}

function isolationOf(args: Json[]): string {
  for (const a of args) if (a.DefElem?.defname === 'transaction_isolation') return constText(a.DefElem.arg);
  return 'repeatable read';
}

/** A SET argument as PostgreSQL's flatten_set_variable_args sees it: the constant's text. */
function constText(n: Json): string {
  const c = n.A_Const;
  if (c === undefined) throw new SqlError('unsupported', SQLSTATE.feature_not_supported, 'SET with an expression value is not supported');
  if (c.ival !== undefined) return String(c.ival.ival ?? 0);
  if (c.fval !== undefined) return String(c.fval.fval);
  if (c.sval !== undefined) return String(c.sval.sval ?? '');
  if (c.boolval !== undefined) return c.boolval.boolval === true ? 'on' : 'off';
  throw new SqlError('unsupported', SQLSTATE.feature_not_supported, 'SET TO NULL is not supported');
}

function classifyTransaction(t: Json): Kind {
  switch (t.kind as string) {
    case 'TRANS_STMT_BEGIN':
      return { kind: 'transaction', verb: 'begin', tag: 'BEGIN' };
    case 'TRANS_STMT_START':
      return { kind: 'transaction', verb: 'begin', tag: 'START TRANSACTION' };
    case 'TRANS_STMT_COMMIT':
      return { kind: 'transaction', verb: 'commit', tag: 'COMMIT' };
    case 'TRANS_STMT_ROLLBACK':
      return { kind: 'transaction', verb: 'rollback', tag: 'ROLLBACK' };
    default:
      return { kind: 'transaction', verb: 'unsupported', tag: String(t.kind).replace(/^TRANS_STMT_/, '').replace(/_/g, ' ') };
  }
}
