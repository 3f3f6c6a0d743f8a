/**
 * Reads fixtures/fdw/queries.sql (its format is described at the top of that file) and
 * compares two answers the way the suite needs: in order when the query's top level has
 * ORDER BY, else as multisets; values equal as text, or as numbers within 1e-9 (relative)
 * when both are floats that a different summation order may have moved in the last digits.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSql, fieldsOf, kindOf } from '../../src/engine/parse.js';
import { FIXTURES } from './setup.js';

export interface FdwQuery {
  readonly sql: string;
  /** 1-based line of the query in the file. */
  readonly line: number;
  readonly remote: readonly string[];
  readonly set: readonly string[];
  readonly error: string | null;
}

export function readQueries(file = 'queries.sql'): FdwQuery[] {
  const lines = readFileSync(join(FIXTURES, file), 'utf8').split('\n');
  const out: FdwQuery[] = [];
  let remote: string[] = [];
  let set: string[] = [];
  let error: string | null = null;
  let buf: string[] = [];
  let start = 0;
  lines.forEach((raw, i) => {
    const l = raw.trimEnd();
    if (buf.length === 0) {
      const d = /^-- (remote|set|error): (.*)$/.exec(l);
      if (d !== null) {
        if (d[1] === 'remote') remote.push(d[2]!);
        else if (d[1] === 'set') set.push(d[2]!);
        else error = d[2]!.trim();
        return;
      }
      if (l.startsWith('--') || l.trim() === '') return;
      start = i + 1;
    }
    buf.push(raw);
    if (l.endsWith(';')) {
      out.push({ sql: buf.join('\n').trim().replace(/;$/, ''), line: start, remote, set, error });
      buf = [];
      remote = [];
      set = [];
      error = null;
    }
  });
  return out;
}

/** Whether the statement's top level orders its rows. */
export async function isOrdered(sql: string): Promise<boolean> {
  const [stmt] = await parseSql(sql);
  return stmt !== undefined && kindOf(stmt) === 'SelectStmt' && fieldsOf(stmt).sortClause !== undefined;
}

type Row = readonly (string | null)[];

const FLOAT = /^-?(\d+\.?\d*(e[+-]?\d+)?|\.\d+)$/i;

function sameValue(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (!FLOAT.test(a) || !FLOAT.test(b)) return false;
  const x = Number(a);
  const y = Number(b);
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

function sameRow(a: Row, b: Row): boolean {
  return a.length === b.length && a.every((v, i) => sameValue(v, b[i]!));
}

/** null when equal, else what differs (for the failure message). */
export function compareRows(got: readonly Row[], want: readonly Row[], ordered: boolean): string | null {
  if (got.length !== want.length) return `${got.length} rows, expected ${want.length}${firstDiff(got, want)}`;
  const key = (r: Row) => JSON.stringify(r);
  const g = ordered ? got : [...got].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  const w = ordered ? want : [...want].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  for (let i = 0; i < g.length; i++) if (!sameRow(g[i]!, w[i]!)) return `row ${i + 1}: ${key(g[i]!)}, expected ${key(w[i]!)}`;
  return null;
}

function firstDiff(got: readonly Row[], want: readonly Row[]): string {
  const w = new Set(want.map((r) => JSON.stringify(r)));
  const g = new Set(got.map((r) => JSON.stringify(r)));
  const extra = got.find((r) => !w.has(JSON.stringify(r)));
  const missing = want.find((r) => !g.has(JSON.stringify(r)));
  return `${extra ? `; unexpected ${JSON.stringify(extra)}` : ''}${missing ? `; missing ${JSON.stringify(missing)}` : ''}`;
}
