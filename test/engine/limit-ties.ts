/**
 * Whether paxd's answer to `… ORDER BY … LIMIT n [OFFSET m]` is one PostgreSQL could also give
 * (issue #19 Done-when 2): where the sort keys tie across the limit, PostgreSQL may return any
 * of the tied rows, so comparing with the rows it happened to return would reject right answers.
 *
 * The check asks PostgreSQL for the whole ordered result (the query without LIMIT/OFFSET, with
 * any ORDER BY expression that is not an output column appended as a hidden one) through a
 * cursor, and accepts paxd's rows when, at every position i of the window [m, m + n), paxd's
 * row is one of the full result's rows whose sort key equals the key at position m + i, each
 * full-result row used at most once. Rows are read only as far as the last key of the window
 * reaches, and the rows of that key after the window are matched as they stream by, so that a
 * limit cut through a million tied rows (ClickBench Q33) costs no memory.
 *
 *   const plan = tiePlan('SELECT a, count(*) AS c FROM t GROUP BY a ORDER BY c DESC LIMIT 10');
 *   // plan.full: 'SELECT a, count(*) AS c FROM t GROUP BY a ORDER BY c DESC', keys [1]
 *   await checkTies(plan, paxdRows, session)   // null, or what is wrong
 *
 * The SQL is taken apart by its text at parenthesis depth 0, which is enough for the
 * benchmark queries it serves; `tiePlan` throws on what it cannot take apart.
 */
import type { PgSession } from './compare.js';

export interface TiePlan {
  /** The query without LIMIT/OFFSET, with hidden sort keys appended to its select list. */
  readonly full: string;
  /**
   * Columns of `full`'s rows that make the sort key, in ORDER BY order (empty: no ORDER BY); a
   * hidden key counts from the end of the row (-1: the last column), as `SELECT *` has no width here.
   */
  readonly keys: readonly number[];
  /** How many columns `full` has beyond the original query's (the hidden sort keys). */
  readonly hidden: number;
  readonly offset: number;
  readonly limit: number | null;
}

/** Depth-0 positions of the query text: outside parentheses, string literals and quoted names. */
function topLevel(sql: string): boolean[] {
  const top = new Array<boolean>(sql.length).fill(false);
  let depth = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      i = end < 0 ? sql.length : end;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else top[i] = depth === 0;
  }
  return top;
}

function findTop(sql: string, top: boolean[], pattern: string, from = 0): number {
  const g = new RegExp(pattern, 'gi');
  g.lastIndex = from;
  for (let m = g.exec(sql); m !== null; m = g.exec(sql)) if (top[m.index]) return m.index;
  return -1;
}

function splitTop(sql: string, start: number, end: number, top: boolean[]): string[] {
  const parts: string[] = [];
  let from = start;
  for (let i = start; i < end; i++)
    if (sql[i] === ',' && top[i]) {
      parts.push(sql.slice(from, i).trim());
      from = i + 1;
    }
  parts.push(sql.slice(from, end).trim());
  return parts;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** The tie plan of a query, or null when its answer is a multiset (no ORDER BY, no LIMIT). */
export function tiePlan(query: string): TiePlan | null {
  const sql = query.trim().replace(/;$/, '');
  const top = topLevel(sql);
  const limitAt = findTop(sql, top, /\blimit\s+(\d+)(\s+offset\s+(\d+))?\s*$/.source);
  const orderAt = findTop(sql, top, /\border\s+by\b/.source);
  if (limitAt < 0 && orderAt < 0) return null;
  let limit: number | null = null;
  let offset = 0;
  let body = sql;
  if (limitAt >= 0) {
    const m = /^limit\s+(\d+)(?:\s+offset\s+(\d+))?\s*$/i.exec(sql.slice(limitAt))!;
    limit = Number(m[1]);
    offset = m[2] === undefined ? 0 : Number(m[2]);
    body = sql.slice(0, limitAt).trimEnd();
  }
  const selectAt = findTop(body, top, /\bselect\b/.source);
  const fromAt = findTop(body, top, /\bfrom\b/.source);
  if (selectAt < 0 || fromAt < 0) throw new Error(`tiePlan: no top-level SELECT … FROM in ${query}`);
  const items = splitTop(body, selectAt + 'select'.length, fromAt, top);
  const aliasOf = (item: string): string | null => {
    const m = /\s+as\s+("?[\w]+"?)$/i.exec(item);
    if (m !== null) return norm(m[1]!.replace(/"/g, ''));
    return /^[a-z_][\w]*$/i.test(item) ? norm(item) : null;
  };
  const exprOf = (item: string) => norm(item.replace(/\s+as\s+("?[\w]+"?)$/i, ''));
  const keys: number[] = [];
  const hidden: string[] = [];
  if (orderAt >= 0) {
    const orderEnd = body.length;
    for (const raw of splitTop(body, orderAt + body.slice(orderAt).match(/^order\s+by/i)![0].length, orderEnd, top)) {
      const e = raw.replace(/\s+(asc|desc)(\s+nulls\s+(first|last))?$/i, '').replace(/\s+nulls\s+(first|last)$/i, '');
      if (/^\d+$/.test(e)) {
        keys.push(Number(e) - 1);
        continue;
      }
      let at = items.findIndex((it) => aliasOf(it) === norm(e));
      if (at < 0) at = items.findIndex((it) => exprOf(it) === norm(e));
      if (at < 0) {
        hidden.push(e);
        at = -hidden.length; // made relative to the row's end below
      }
      keys.push(at);
    }
  }
  for (let i = 0; i < keys.length; i++) if (keys[i]! < 0) keys[i] = -(hidden.length + keys[i]! + 1);
  const full =
    hidden.length === 0 ? body : `${body.slice(0, fromAt).trimEnd()}, ${hidden.join(', ')} ${body.slice(fromAt)}`;
  return { full, keys, hidden: hidden.length, offset, limit };
}

function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  const x = Number(a);
  const y = Number(b);
  if (a === '' || b === '' || !Number.isFinite(x) || !Number.isFinite(y) || !/[.e]/i.test(a + b)) return false;
  return Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y));
}

/** Joins a row's sort-key values into one Map key. */
const KEY_SEP = '\u001f';

const sameRow = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, j) => sameValue(v, b[j]!));

/**
 * null when `rows` (paxd's answer) is one PostgreSQL could give for the plan's query, else what
 * is wrong. Runs `plan.full` through a cursor on `session` (in a transaction of its own).
 */
export async function checkTies(plan: TiePlan, rows: readonly (readonly string[])[], session: PgSession, fetchRows = 20_000): Promise<string | null> {
  const must = async (sql: string) => {
    const r = await session.run(sql);
    if (!r.ok) throw new Error(`${sql.slice(0, 80)}: PostgreSQL ${r.code} ${r.message}`);
    return r.rows;
  };
  const windowEnd = plan.limit === null ? Infinity : plan.offset + plan.limit;
  const keyOf = (r: readonly string[]) => plan.keys.map((k) => r[k < 0 ? r.length + k : k]!).join(KEY_SEP);
  const visible = (r: string[]) => (plan.hidden === 0 ? r : r.slice(0, r.length - plan.hidden));

  /** Candidate rows by key: the pre-window rows of the first window key, the window's rows. */
  const candidates = new Map<string, string[][]>();
  const windowKeys: string[] = [];
  let before: { key: string; rows: string[][] } = { key: '', rows: [] };
  let pos = 0;
  let lastKey: string | null = null;
  /** paxd rows of the last window key not yet matched, while rows after the window stream by. */
  let open: (readonly string[])[] | null = null;
  let problem: string | null = null;
  let pendingLast: (readonly string[])[] = [];

  await must('BEGIN');
  try {
    await must(`DECLARE tie_check NO SCROLL CURSOR FOR ${plan.full}`);
    stream: for (;;) {
      const batch = await must(`FETCH ${fetchRows} FROM tie_check`);
      if (batch.length === 0) break;
      for (const r of batch) {
        const key = keyOf(r);
        if (pos < plan.offset) {
          if (key !== before.key) before = { key, rows: [] };
          before.rows.push(visible(r));
        } else if (pos < windowEnd) {
          if (pos === plan.offset && before.key === key) candidates.set(key, before.rows);
          if (!candidates.has(key)) candidates.set(key, []);
          candidates.get(key)!.push(visible(r));
          windowKeys.push(key);
          lastKey = key;
        } else {
          if (open === null) {
            problem = matchWindow();
            if (problem !== null) break stream;
            open = pendingOfLast();
          }
          if (key !== lastKey || open.length === 0) break stream;
          const v = visible(r);
          const i = open.findIndex((p) => sameRow(p, v));
          if (i >= 0) open.splice(i, 1);
        }
        pos++;
      }
    }
  } finally {
    await must('ROLLBACK');
  }
  if (problem !== null) return problem;
  if (open === null) {
    const p = matchWindow();
    if (p !== null) return p;
    open = [];
  }
  if (open.length > 0) return `paxd row ${JSON.stringify(open[0])} is not among PostgreSQL's rows of its sort key (${lastKey})`;
  return null;

  /** Matches paxd's rows to the candidates of their positions' keys; unmatched rows of the last key stay open. */
  function matchWindow(): string | null {
    if (rows.length !== windowKeys.length) return `${rows.length} rows, PostgreSQL ${windowKeys.length}`;
    pendingLast = [];
    const used = new Map<string, boolean[]>();
    for (let i = 0; i < rows.length; i++) {
      const key = windowKeys[i]!;
      const pool = candidates.get(key)!;
      const taken = used.get(key) ?? used.set(key, new Array<boolean>(pool.length).fill(false)).get(key)!;
      const j = pool.findIndex((c, k) => !taken[k] && sameRow(c, rows[i]!));
      if (j >= 0) taken[j] = true;
      else if (key === lastKey) pendingLast.push(rows[i]!);
      else return `row ${i}: paxd ${JSON.stringify(rows[i])} is not among PostgreSQL's rows of that position's sort key (${key.split(KEY_SEP).join(', ')})`;
    }
    return null;
  }
  function pendingOfLast(): (readonly string[])[] {
    return pendingLast;
  }
}
