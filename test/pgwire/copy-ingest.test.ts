/**
 * One CSV/text parser for `paxd ingest` and COPY FROM STDIN (the house issue "one CSV/text COPY
 * parser"): the same inputs go through
 *
 *   - `paxd ingest TABLE FILE --format csv|text` (the CLI, a child process),
 *   - `COPY t FROM STDIN` over the wire into a real `paxd serve` (a child process), the data
 *     cut into CopyData messages at random byte positions (inside multi-byte characters and
 *     escapes too), and
 *   - a real PostgreSQL 15's `COPY t FROM STDIN`, sent the very same CopyData messages,
 *
 * and must agree: for bad inputs on the SQLSTATE, the line and the column/value (and over the
 * wire on PostgreSQL's message and CONTEXT line, word for word); for good inputs on the table's
 * content.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseTypeName } from '../../src/types/parse-type.js';
import { formatText } from '../../src/types/text-io.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { ALL_STORED_TYPES, Rng, randomValue, testSeed } from '../support/random.js';
import { runCli, spawnTs } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';
import { RawClient, dataRowOf, errorFieldsOf, fe, splitReplies, type Reply } from './client.js';

type Col = [name: string, type: string, notNull?: boolean];
type Format = 'csv' | 'text';

let pg: Postgres;
let dir: string;
let data: string;
let daemon: ChildProcess;
let port = 0;
let client: RawClient;
/** A raw protocol connection to the real PostgreSQL. */
let pgClient: RawClient;
let tableNo = 0;
const rng = new Rng(testSeed() + 11);

const errorOf = (rs: Reply[]): Record<string, string> | null => {
  const e = rs.find((r) => r.code === 'E');
  return e === undefined ? null : errorFieldsOf(e.body);
};
const rowsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'D').map((r) => dataRowOf(r.body));

function ddl(cols: readonly Col[]): string {
  return cols.map(([n, t, nn]) => `${n} ${t}${nn ? ' NOT NULL' : ''}`).join(', ');
}

/** Cuts `bytes` at a few random positions (anywhere: inside characters, escapes, line ends). */
function randomPieces(bytes: Buffer): Buffer[] {
  const cuts = new Set<number>();
  const n = rng.int(0, Math.min(12, bytes.length));
  for (let i = 0; i < n; i++) cuts.add(rng.int(1, Math.max(1, bytes.length - 1)));
  if (bytes.length > 2 && rng.chance(0.3)) for (let i = 1; i < bytes.length; i += rng.int(1, 3)) cuts.add(i);
  const sorted = [...cuts].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b);
  const out: Buffer[] = [];
  let at = 0;
  for (const c of sorted) {
    out.push(bytes.subarray(at, c));
    at = c;
  }
  out.push(bytes.subarray(at));
  return out;
}

async function wire(sql: string): Promise<Reply[]> {
  const r = await client.query(sql);
  const e = errorOf(r);
  if (e !== null) throw new Error(`paxd: ${sql}: ${e.C} ${e.M}`);
  return r;
}

/** COPY … FROM STDIN through `c` (paxd or PostgreSQL), the data as these CopyData messages. */
async function copyIn(c: RawClient, table: string, options: string, pieces: readonly Buffer[]): Promise<{ error: Record<string, string> | null; tag: string | null }> {
  c.send(fe.query(`COPY ${table} FROM STDIN ${options}`));
  const head = splitReplies(await c.until((b) => splitReplies(b).some((r) => r.code === 'G' || r.code === 'Z')));
  if (!head.some((r) => r.code === 'G')) {
    const r = await c.untilReady();
    return { error: errorOf(r), tag: null };
  }
  c.send(...pieces.map((p) => fe.copyData(p)), fe.copyDone());
  const r = await c.untilReady();
  const done = r.find((x) => x.code === 'C');
  return { error: errorOf(r), tag: done === undefined ? null : done.body.toString('utf8', 0, done.body.byteLength - 1) };
}

/** The same COPY FROM STDIN into PostgreSQL 15 and into paxd serve. */
async function bothCopy(table: string, cols: readonly Col[], target: string, options: string, bytes: Buffer): Promise<{ want: Awaited<ReturnType<typeof copyIn>>; got: Awaited<ReturnType<typeof copyIn>> }> {
  await pg.query(`DROP TABLE IF EXISTS ${table}; CREATE TABLE ${table} (${ddl(cols)})`);
  await wire(`CREATE TABLE ${table} (${ddl(cols)})`);
  const pieces = randomPieces(bytes);
  const want = await copyIn(pgClient, target, options, pieces);
  const got = await copyIn(client, target, options, pieces);
  return { want, got };
}

/** `paxd ingest` of the same bytes; its one-line error parsed, or null. */
async function ingest(table: string, format: Format, bytes: Buffer, extra: string[] = []): Promise<{ code: string; line: number; column: number | null; message: string } | null> {
  const file = join(dir, `${table}.ingest`);
  writeFileSync(file, bytes);
  const r = await runCli(['ingest', table, file, '--format', format, ...extra, '--data', data]);
  if (r.code === 0) return null;
  // paxd: ERROR:  22P02: /tmp/…/x.ingest:3:2: invalid input syntax for type integer: "x"
  const m = /ERROR: {2}([0-9A-Z]{5}): [^:\n]+:(\d+)(?::(\d+))?: ([^\n]*)/.exec(r.stderr);
  assert.ok(m, `paxd ingest failed without a located error: ${r.stderr}`);
  return { code: m![1]!, line: Number(m![2]), column: m![3] === undefined ? null : Number(m![3]), message: m![4]! };
}

async function pgRows(table: string, cols: readonly Col[]): Promise<(string | null)[][]> {
  const exprs = cols.map(([n]) => `CASE WHEN ${n} IS NULL THEN NULL ELSE format('%s', ${n}) END`).join(', ');
  return JSON.parse(await pg.query(`SELECT coalesce(json_agg(json_build_array(${exprs}) ORDER BY ${cols[0]![0]}), '[]') FROM ${table}`)) as (string | null)[][];
}

async function paxdRows(table: string, cols: readonly Col[]): Promise<(string | null)[][]> {
  return rowsOf(await wire(`SELECT ${cols.map(([n]) => n).join(', ')} FROM ${table} ORDER BY ${cols[0]![0]}`));
}

test.before(async () => {
  pg = await startPostgres();
  dir = tempDir('paxd-copy-ingest-');
  data = join(dir, 'store');
  daemon = spawnTs('test/support/cli.ts', ['serve', '--data', data, '--listen', '127.0.0.1:0', '--http', 'off', '--auth', 'trust']);
  let out = '';
  port = await new Promise<number>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`paxd serve did not start: ${out}`)), 60_000);
    const look = (d: Buffer) => {
      out += d.toString();
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      }
    };
    daemon.stdout!.on('data', look);
    daemon.stderr!.on('data', look);
    daemon.once('exit', (code) => reject(new Error(`paxd serve exited with ${code}: ${out}`)));
  });
  client = await RawClient.session(port);
  pgClient = await RawClient.session(pg.port, { user: 'postgres', database: 'postgres' });
});

test.after(async () => {
  client.end();
  pgClient.end();
  daemon.kill('SIGTERM');
  await new Promise((r) => daemon.once('exit', r));
  await pg.stop();
});

// ---- the same bad inputs through all three ----

interface BadCase {
  name: string;
  format: Format;
  cols: Col[];
  input: string | Buffer;
  /** COPY options besides FORMAT. */
  options?: string;
}

const ABC: Col[] = [['a', 'int4', true], ['b', 'text'], ['d', 'date']];
const latin1 = (s: string) => Buffer.from(s, 'latin1');

const BAD: BadCase[] = [
  { name: 'a bad integer', format: 'csv', cols: ABC, input: '1,x,2000-01-01\n2x,y,2000-01-02\n' },
  { name: 'a bad integer', format: 'text', cols: ABC, input: '1\tx\t2000-01-01\n2x\ty\t2000-01-02\n' },
  { name: 'a bad date', format: 'csv', cols: ABC, input: '1,x,2000-01-01\n2,y,2001-02-29\n' },
  { name: 'a bad date', format: 'text', cols: ABC, input: '1\tx\t2000-01-01\n2\ty\t2001-02-29\n' },
  { name: 'too many columns', format: 'csv', cols: ABC, input: '1,x,2000-01-01\n2,y,2000-01-02,9\n' },
  { name: 'too many columns', format: 'text', cols: ABC, input: '1\tx\t2000-01-01\n2\ty\t2000-01-02\t9\n' },
  { name: 'too few columns', format: 'csv', cols: ABC, input: '1,x,2000-01-01\n2,y\n' },
  { name: 'too few columns', format: 'text', cols: ABC, input: '1\tx\t2000-01-01\n2\ty\n' },
  { name: 'an unterminated quoted field', format: 'csv', cols: ABC, input: '1,x,2000-01-01\n2,"y\nz,2000-01-02\n' },
  { name: 'invalid UTF-8', format: 'csv', cols: ABC, input: latin1('1,x,2000-01-01\n2,caf\xc3(,2000-01-02\n') },
  { name: 'invalid UTF-8', format: 'text', cols: ABC, input: latin1('1\tx\t2000-01-01\n2\tcaf\xc3(\t2000-01-02\n') },
  { name: 'invalid UTF-8 from an escape', format: 'text', cols: ABC, input: '1\tx\t2000-01-01\n2\tcaf\\303(\t2000-01-02\n' },
  { name: 'a NUL from an escape', format: 'text', cols: ABC, input: '1\tx\\0y\t2000-01-01\n' },
  { name: 'a NOT NULL violation', format: 'csv', cols: ABC, input: '1,x,2000-01-01\n,y,2000-01-02\n' },
  { name: 'a NOT NULL violation', format: 'text', cols: ABC, input: '1\tx\t2000-01-01\n\\N\ty\t2000-01-02\n' },
  { name: 'a bad value after quoted newlines', format: 'csv', cols: ABC, input: '1,"x\ny",2000-01-01\n2,"a\nb\nc",2000-13-01\n' },
  { name: 'a corrupt end-of-copy marker', format: 'text', cols: ABC, input: '1\tx\t2000-01-01\n\\.x\n' },
  { name: 'a literal carriage return', format: 'text', cols: ABC, input: '1\tx\t2000-01-01\n2\ty\r\t2000-01-02\n' },
  { name: 'an unquoted newline in a CRLF file', format: 'csv', cols: ABC, input: '1,x,2000-01-01\r\n2,y\n,2000-01-02\r\n' },
  { name: 'a long bad value (CONTEXT cut at 100 bytes)', format: 'csv', cols: [['a', 'int4'], ['b', 'text']], input: `1,x\n${'9'.repeat(150)}é,y\n` },
  { name: 'a bad value with DELIMITER and NULL options', format: 'text', cols: ABC, input: '1|NULL|2000-01-01\n2|y|soon\n', options: "DELIMITER '|', NULL 'NULL'" },
  { name: 'a bad value with QUOTE and ESCAPE options', format: 'csv', cols: ABC, input: "1;'a\\'b';2000-01-01\n'2x';y;2000-01-02\n", options: "DELIMITER ';', QUOTE '''', ESCAPE '\\'" },
];

function optionsOf(c: { format: Format; options?: string }): string {
  return `(FORMAT ${c.format}${c.options !== undefined ? `, ${c.options}` : ''})`;
}

function ingestFlags(options: string | undefined): string[] {
  const out: string[] = [];
  for (const m of (options ?? '').matchAll(/(DELIMITER|NULL|QUOTE|ESCAPE) '((?:''|[^'])*)'/g)) out.push(`--${m[1]!.toLowerCase()}`, m[2]!.replace(/''/g, "'"));
  return out;
}

for (const c of BAD) {
  test(`the same error through paxd ingest, COPY FROM STDIN and PostgreSQL: ${c.name} (${c.format})`, async () => {
    const n = ++tableNo;
    const table = `bad${n}`;
    const bytes = typeof c.input === 'string' ? Buffer.from(c.input, 'utf8') : c.input;
    const { want: pgOut, got } = await bothCopy(table, c.cols, table, optionsOf(c), bytes);
    assert.ok(pgOut.error !== null, `PostgreSQL loaded "${c.name}"`);
    const want = { code: pgOut.error!.C, message: pgOut.error!.M, context: pgOut.error!.W };
    await wire(`CREATE TABLE ${table}_i (${ddl(c.cols)})`);
    assert.ok(got.error !== null, `COPY FROM STDIN loaded "${c.name}"`);
    const e = got.error!;
    // Over the wire: PostgreSQL's SQLSTATE, message and CONTEXT, word for word.
    assert.equal([e.C, e.M, e.W], [want.code, want.message, want.context]);
    assert.equal(rowsOf(await wire(`SELECT count(*) FROM ${table}`)), [['0']], 'nothing committed');

    // paxd ingest: the same SQLSTATE, message, line and column.
    const ing = await ingest(`${table}_i`, c.format, bytes, ingestFlags(c.options));
    assert.ok(ing !== null, `paxd ingest loaded "${c.name}"`);
    const line = Number(/line (\d+)/.exec(want.context!)![1]);
    assert.is(ing!.code, want.code);
    assert.is(ing!.message.replace(`"${table}_i"`, `"${table}"`), want.message);
    assert.is(ing!.line, line, 'line');
    const named = /, column (\w+): "((?:[^"]|"(?!$))*)"$/.exec(want.context!);
    if (named !== null) {
      // A conversion error: the same column, and the value is what the message quotes.
      assert.is(ing!.column, c.cols.findIndex(([nm]) => nm === named[1]) + 1, 'column');
      assert.ok(e.M!.includes(named[2]!.replace(/\.\.\.$/, '')), `value "${named[2]}" in "${e.M}"`);
    }
    assert.equal(rowsOf(await wire(`SELECT count(*) FROM ${table}_i`)), [['0']], 'nothing ingested');
  });
}

// ---- good inputs: options, then random rows of every type ----

interface GoodCase {
  name: string;
  format: Format;
  cols: Col[];
  input: string;
  /** COPY options besides FORMAT; column lists go in `list`. */
  options?: string;
  list?: string;
}

const GOOD: GoodCase[] = [
  { name: 'text escapes', format: 'text', cols: [['a', 'int4'], ['b', 'text']], input: '1\ta\\tb\\\\c\\nd\\re\\bf\\fg\\vh\n2\t\\101\\x42\\x4a\\7\\18\\xg\\q\n3\t\\N\n4\t\\\\N\n5\t\n6\ta\\\tb\n7\t\\303\\251t\\xc3\\xa9\n' },
  { name: 'text: escaped newline is data, \\. ends the data mid-line', format: 'text', cols: [['a', 'int4'], ['b', 'text']], input: '1\ta\\\nb\n2\tc\\.\n3\tnever\n' },
  { name: 'text with CRLF and a header', format: 'text', cols: [['a', 'int4'], ['b', 'text']], input: 'a\tb\r\n1\tx\r\n2\t\\N\r\n\\.\r\n', options: 'HEADER' },
  { name: 'csv with HEADER MATCH and a column list', format: 'csv', cols: [['a', 'int4'], ['b', 'text'], ['c', 'int4']], input: 'c,a\n3,1\n4,2\n', options: 'HEADER match', list: '(c, a)' },
  { name: 'csv with every option', format: 'csv', cols: [['a', 'int4'], ['b', 'text'], ['c', 'text']], input: "1;'x;y';NULL\n2;'a\\'b';''\n3;NULL;'NULL'\n", options: "DELIMITER ';', QUOTE '''', ESCAPE '\\', NULL 'NULL'" },
  { name: 'csv with FORCE_NULL and FORCE_NOT_NULL', format: 'csv', cols: [['a', 'int4'], ['b', 'text'], ['c', 'text'], ['d', 'int4']], input: '1,"",,\n2,x,"",""\n3,,y,7\n', options: 'FORCE_NULL (b, d), FORCE_NOT_NULL (c)' },
  { name: 'text with DELIMITER and NULL', format: 'text', cols: [['a', 'int4'], ['b', 'text']], input: '1|x\\|y\n2|-\n3|\\-\n', options: "DELIMITER '|', NULL '-'" },
];

async function compareGood(c: GoodCase): Promise<void> {
  const n = ++tableNo;
  const table = `good${n}`;
  const bytes = Buffer.from(c.input, 'utf8');
  const opts = optionsOf(c);
  const { want, got } = await bothCopy(table, c.cols, `${table} ${c.list ?? ''}`, opts, bytes);
  assert.is(want.error, null, `PostgreSQL failed: ${JSON.stringify(want.error)}`);
  const wantRows = await pgRows(table, c.cols);
  assert.is(got.error, null, `COPY FROM STDIN failed: ${JSON.stringify(got.error)}`);
  assert.is(got.tag, want.tag);
  assert.equal(await paxdRows(table, c.cols), wantRows);
}

for (const c of GOOD) test(`COPY FROM STDIN loads what PostgreSQL loads: ${c.name}`, () => compareGood(c));

/** Every stored type, with the int4 column first as `id` (the rows' order). */
const ALL_TYPES: Col[] = [['id', 'int4'], ...ALL_STORED_TYPES.filter(([, t]) => t !== 'int4').map(([n, t]): Col => [n, t])];

/** One value in COPY's text format, escaped in one of the ways PostgreSQL reads. */
function textEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    const named: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\v': '\\v' };
    if (named[ch] !== undefined && !rng.chance(0.3)) out += named[ch];
    else if (code < 0x20 || ch === '\\' || ch === '\t') out += byteEscape(code);
    else if (code >= 0x80 && rng.chance(0.3)) {
      // Every byte of the character escaped: the decoded bytes must be checked as UTF-8.
      for (const b of Buffer.from(ch, 'utf8')) out += byteEscape(b);
    } else if (/[a-zA-Z]/.test(ch) && !/[bfnrtvxN]/.test(ch) && rng.chance(0.05)) out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

/** `\ooo` or `\xhh`, at full width so that a digit after it is not taken into it. */
function byteEscape(b: number): string {
  return rng.chance(0.5) ? `\\${b.toString(8).padStart(3, '0')}` : `\\x${b.toString(16).padStart(2, '0')}`;
}

function csvField(s: string): string {
  const must = s === '' || /[",\r\n]/.test(s) || s === '\\.';
  return must || rng.chance(0.2) ? `"${s.replace(/"/g, '""')}"` : s;
}

function randomInput(format: Format, rows: number): Buffer {
  const types = ALL_TYPES.map(([, t]) => parseTypeName(t));
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    const vals = types.map((type, i) => {
      if (i === 0) return String(r);
      if (rng.chance(0.08)) return format === 'csv' ? '' : '\\N';
      let s = formatText(type, randomValue(type, rng));
      if (type.id === 'bpchar') s = s.replace(/ +$/, '');
      return format === 'csv' ? csvField(s) : textEscape(s);
    });
    lines.push(vals.join(format === 'csv' ? ',' : '\t'));
  }
  return Buffer.from(lines.join('\n') + '\n', 'utf8');
}

for (const format of ['csv', 'text'] as const) {
  test(`random rows of every type (${format}), cut into CopyData anywhere: COPY FROM STDIN = paxd ingest = PostgreSQL`, async () => {
    const n = ++tableNo;
    const table = `rnd${n}`;
    const bytes = randomInput(format, 400);
    const { want, got: first } = await bothCopy(table, ALL_TYPES, table, `(FORMAT ${format})`, bytes);
    assert.is(want.error, null, `PostgreSQL failed: ${JSON.stringify(want.error)}`);
    const wantRows = await pgRows(table, ALL_TYPES);
    assert.is(wantRows.length, 400);
    assert.is(first.error, null, `COPY FROM STDIN failed: ${JSON.stringify(first.error)}`);
    assert.equal(await paxdRows(table, ALL_TYPES), wantRows);
    await wire(`TRUNCATE ${table}`);

    await wire(`CREATE TABLE ${table}_i (${ddl(ALL_TYPES)})`);
    for (let round = 0; round < 3; round++) {
      // Each round cuts the data differently.
      const got = await copyIn(client, table, `(FORMAT ${format})`, randomPieces(bytes));
      assert.is(got.error, null, `COPY FROM STDIN failed: ${JSON.stringify(got.error)}`);
      assert.is(got.tag, 'COPY 400');
      assert.equal(await paxdRows(table, ALL_TYPES), wantRows, `round ${round}`);
      await wire(`TRUNCATE ${table}`);
    }
    assert.is(await ingest(`${table}_i`, format, bytes), null, 'paxd ingest failed');
    assert.equal(await paxdRows(`${table}_i`, ALL_TYPES), wantRows);
  });
}

test.run();
