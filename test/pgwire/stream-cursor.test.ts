/**
 * Streaming cursors (src/pgwire/session/cursor.ts StreamCursor, src/engine/stream.ts) and the DataRow
 * encoder (src/pgwire/codec/row-encoder.ts): every byte a streaming cursor sends must be the byte
 * the materialized path sends for the same statement — over every stored type, NULLs,
 * deleted rows, both layouts, pushed predicates and postgres_fdw's extended-protocol DECLARE
 * — and FETCH/MOVE/CLOSE keep PostgreSQL's semantics.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { query, scanPlanOf } from '../../src/engine/index.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { RowEncoder, type Segment } from '../../src/pgwire/codec/row-encoder.js';
import { columnOf, formatText, getValue, TYPE_IDS, type Batch, type Column, type PgType } from '../../src/types/index.js';
import { Rng, randomType, randomValue, testSeed } from '../support/random.js';
import { tempDir } from '../support/tmp.js';
import { dataRowOf, errorFieldsOf, fe, RawClient, type Reply } from './client.js';

let db: Database;
let srv: RunningServer;

const COLUMNS = 'id int4, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8, n numeric(12,2), nu numeric, t text, v varchar(12), bc char(5), b bool, by bytea, d date, ts timestamp, tz timestamptz, u uuid, j jsonb';
const NAMES = 'id, i2, i4, i8, f4, f8, n, nu, t, v, bc, b, by, d, ts, tz, u, j';

/** Literals per column (after id), cycled over the generated rows; NULL shows up in each. */
const EDGE: readonly string[][] = [
  ['-32768', '32767', '0', 'NULL', '-1', '7'],
  ['-2147483648', '2147483647', '0', 'NULL', '42', '-7'],
  ['-9223372036854775808', '9223372036854775807', '9007199254740993', '-9007199254740993', '0', 'NULL', '1000000007', '-12'],
  ["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", '0.33333334', 'NULL', '1e-40', '3.4e38'],
  ["'NaN'", "'Infinity'", "'-Infinity'", "'-0'", '0.14285714285714285', 'NULL', '1e300', '5e-324'],
  ['-0.01', '1.37', 'NULL', '9999999999.99', '-9999999999.99', '0'],
  ["'NaN'", '0.07692307692307692308', 'NULL', '-1.50', '123456789012345678901234567890.123', "'Infinity'", '0'],
  ["E'quote '' backslash \\\\ tab\\t nl\\n unicode é'", "''", 'NULL', "'text 1 bar'", "'日本語 😀'", "'" + 'long '.repeat(40) + "'"],
  ["'vc1'", "''", 'NULL', "'é\\x'", "'twelve chars'"],
  ["'ab'", "''", 'NULL', "'abcde'", "'é'"],
  ['true', 'false', 'NULL'],
  ["'\\x00ff'", "''", 'NULL', "'\\x00000001'", "'" + '\\x' + 'ab'.repeat(40) + "'"],
  ["'infinity'", "'-infinity'", "'2024-01-02'", "'0044-03-15 BC'", 'NULL', "'10000-01-01'", "'0001-01-01'", "'9999-12-31'", "'1970-01-01'", "'1969-12-31'"],
  [
    "'2024-01-01 01:01:01.5'",
    "'-infinity'",
    "'infinity'",
    "'0044-03-15 12:00:00 BC'",
    'NULL',
    "'1969-12-31 23:59:59.999999'",
    "'1900-02-28 00:00:00.000001'",
    "'12345-06-07 08:09:10'",
    "'2262-04-11 23:47:16.854775'",
    "'1677-09-21 00:12:43.145225'",
    "'0001-01-01 00:00:00'",
    "'9999-12-31 23:59:59.12'",
  ],
  ["'2024-01-01 02:30:00+00'", "'infinity'", "'-infinity'", 'NULL', "'1999-12-31 23:59:59.1+00'", "'0100-01-01 00:00:00+00 BC'", "'2038-01-19 03:14:07.000010+00'"],
  ["'00000000-0000-0000-0000-000000000000'", "'c4ca4238-a0b9-2382-0dcc-509a6f75849b'", 'NULL', "'ffffffff-ffff-ffff-ffff-ffffffffffff'"],
  [`'{"a": 1, "b": [true, null, "x\\"y"]}'`, "'[]'", 'NULL', "'\"é\"'", "'12.50'"],
];

async function fill(table: string, layout: 'pax' | 'ao_column', rows: number): Promise<void> {
  await query(db, `CREATE TABLE ${table} (${COLUMNS}) WITH (layout = ${layout})`);
  for (let start = 0; start < rows; start += 500) {
    const values: string[] = [];
    for (let id = start; id < Math.min(rows, start + 500); id++) values.push(`(${id}, ${EDGE.map((e, k) => e[(id + k) % e.length]!).join(', ')})`);
    await query(db, `INSERT INTO ${table} (${NAMES}) VALUES ${values.join(', ')}`);
  }
  // Deleted rows leave through the scan's selection vectors.
  await query(db, `DELETE FROM ${table} WHERE id % 7 = 3 OR (id > 1500 AND id < 1700)`);
}

test.before(async () => {
  db = await Database.open(tempDir());
  await fill('ty', 'pax', 2600);
  await fill('ty_ao', 'ao_column', 1300);
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

const session = (): Promise<RawClient> => RawClient.session(srv.port);

const q = (c: RawClient, sql: string): Promise<Reply[]> => c.query(sql);

const codes = (rs: Reply[]) => rs.map((r) => r.code).join('');
const errorOf = (rs: Reply[]) => errorFieldsOf(rs.find((r) => r.code === 'E')!.body);
const dataRows = (rs: Reply[]) => rs.filter((r) => r.code === 'D').map((r) => Buffer.from(r.body));
const rowsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'D').map((r) => dataRowOf(r.body));
const tagsOf = (rs: Reply[]) => rs.filter((r) => r.code === 'C').map((r) => r.body.toString('utf8', 0, r.body.byteLength - 1));

/** The DataRow bodies of a cursor read with FETCH sizes cycling through `sizes`, until a short one. */
async function fetchAll(c: RawClient, cursor: string, sizes: readonly number[]): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let k = 0; ; k++) {
    const n = sizes[k % sizes.length]!;
    const r = await q(c, `FETCH ${n} FROM ${cursor}`);
    assert.is(r[0]!.code, 'T', `FETCH ${n} describes its rows first: ${codes(r).slice(0, 8)}`);
    const rows = dataRows(r);
    assert.equal(tagsOf(r), [`FETCH ${rows.length}`]);
    out.push(...rows);
    if (rows.length < n) return out;
    assert.is(rows.length, n, 'a FETCH returns exactly n rows until the end');
  }
}

const SELECTS: readonly string[] = [
  `SELECT ${NAMES} FROM TABLE`,
  'SELECT t, id, t, NULL, d, bc, by, j FROM public.TABLE',
  'SELECT NULL FROM TABLE',
  'SELECT id, i8, ts, tz FROM TABLE WHERE ((i4 >= 0)) AND ((id < 2000))',
  'SELECT u, nu, n, f4, f8 FROM TABLE WHERE ((t IS NULL)) OR ((b))',
  'SELECT id, v FROM TABLE WHERE ((id = 12345))',
];

for (const table of ['ty', 'ty_ao']) {
  test(`${table}: a streaming cursor sends the bytes of the materialized one, and of the SELECT`, async () => {
    const c = await session();
    try {
      for (const template of SELECTS) {
        const sql = template.replace('TABLE', table);
        assert.ok((await scanPlanOf(db, sql, [], [])) !== null, `streams: ${sql}`);
        const expected = dataRows(await q(c, sql));
        await q(c, 'BEGIN');
        await q(c, `DECLARE s CURSOR FOR ${sql}`);
        await q(c, `DECLARE m SCROLL CURSOR FOR ${sql}`);
        const streamed = await fetchAll(c, 's', [1, 7, 100, 1000, 3]);
        const materialized = await fetchAll(c, 'm', [100000]);
        await q(c, 'COMMIT');
        assert.is(streamed.length, expected.length, sql);
        assert.ok(streamed.every((b, i) => b.equals(expected[i]!)), `streamed rows differ: ${sql}`);
        assert.ok(materialized.every((b, i) => b.equals(expected[i]!)), `materialized rows differ: ${sql}`);
      }
    } finally {
      c.end();
    }
  });
}

test('what is not a plain scan is not streamed (and still answered by the materialized path)', async () => {
  for (const sql of [
    'SELECT id FROM ty ORDER BY id',
    'SELECT id FROM ty LIMIT 3',
    'SELECT DISTINCT b FROM ty',
    'SELECT count(*) FROM ty',
    'SELECT id + 1 FROM ty',
    'SELECT ctid, id FROM ty',
    'SELECT id FROM ty WHERE id + 0 > 5',
    'SELECT lower(t) FROM ty',
    "SELECT id, 'x' FROM ty",
  ])
    assert.is(await scanPlanOf(db, sql, [], []), null, sql);
  const c = await session();
  try {
    await q(c, 'BEGIN');
    await q(c, 'DECLARE c CURSOR FOR SELECT id FROM ty WHERE id + 0 < 3 ORDER BY id');
    assert.equal(rowsOf(await q(c, 'FETCH 10 FROM c')), [['0'], ['1'], ['2']]);
    await q(c, 'COMMIT');
  } finally {
    c.end();
  }
});

test('postgres_fdw’s flow: DECLARE with a $1 through the extended protocol, FETCH 100 until short, CLOSE, COMMIT', async () => {
  const c = await session();
  try {
    const sql = 'SELECT id, t, ts FROM public.ty WHERE ((id > $1::integer))';
    const expected = dataRows(await q(c, sql.replace('$1', '2000')));
    await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    c.send(fe.parse('', `DECLARE c1 CURSOR FOR\n${sql}`), fe.bind('', '', ['2000'], [0]), fe.describe('P', ''), fe.execute('', 0), fe.sync());
    const r = await c.untilReady();
    assert.equal([codes(r), tagsOf(r)], ['12nCZ', ['DECLARE CURSOR']]);
    const got = await fetchAll(c, 'c1', [100]);
    assert.ok(expected.length > 100 && got.length === expected.length && got.every((b, i) => b.equals(expected[i]!)));
    // An exact multiple ends with a FETCH of 0 rows that still has its RowDescription.
    assert.equal(codes(await q(c, 'FETCH 100 FROM c1')), 'TCZ');
    assert.equal(tagsOf(await q(c, 'CLOSE c1')), ['CLOSE CURSOR']);
    assert.is(errorOf(await q(c, 'FETCH 1 FROM c1')).C, '34000');
    await q(c, 'ROLLBACK');
    await q(c, 'START TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await q(c, 'DECLARE c1 CURSOR FOR SELECT id FROM ty');
    await q(c, 'FETCH 5 FROM c1');
    assert.equal(tagsOf(await q(c, 'COMMIT TRANSACTION')), ['COMMIT']);
    assert.is(errorOf(await q(c, 'FETCH 1 FROM c1')).C, '34000', 'the transaction’s end closes the cursor');
  } finally {
    c.end();
  }
});

test('MOVE, FETCH BACKWARD/ABSOLUTE/RELATIVE/0 on a streaming cursor behave as on a scrollable one; NO SCROLL refuses with 55000', async () => {
  const c = await session();
  try {
    const sql = 'SELECT id, t FROM ty WHERE ((id < 40))';
    await q(c, 'BEGIN');
    await q(c, `DECLARE s CURSOR FOR ${sql}`);
    await q(c, `DECLARE m SCROLL CURSOR FOR ${sql}`);
    for (const cmd of ['FETCH 3 FROM', 'MOVE 2 IN', 'FETCH NEXT FROM', 'MOVE FORWARD 1 IN', 'FETCH 0 FROM', 'FETCH BACKWARD 2 FROM', 'FETCH ABSOLUTE 10 FROM', 'FETCH RELATIVE -3 FROM', 'FETCH ALL FROM', 'FETCH PRIOR FROM', 'MOVE BACKWARD ALL IN', 'FETCH 4 FROM', 'FETCH ABSOLUTE -1 FROM', 'FETCH 10 FROM']) {
      const a = await q(c, `${cmd} s`);
      const b = await q(c, `${cmd} m`);
      assert.equal([codes(a), tagsOf(a), rowsOf(a)], [codes(b), tagsOf(b), rowsOf(b)], cmd);
    }
    await q(c, 'COMMIT');
    await q(c, 'BEGIN');
    await q(c, `DECLARE n NO SCROLL CURSOR FOR ${sql}`);
    assert.equal(tagsOf(await q(c, 'MOVE 5 IN n')), ['MOVE 5']);
    assert.is(rowsOf(await q(c, 'FETCH 1 FROM n')).length, 1);
    const e = errorOf(await q(c, 'FETCH BACKWARD 1 FROM n'));
    assert.equal([e.C, e.M, e.D], ['55000', 'cursor can only scan forward', 'Declare it with SCROLL option to enable backward scan.']);
    await q(c, 'ROLLBACK');
  } finally {
    c.end();
  }
});

test('a streaming cursor reads the transaction’s snapshot: its own earlier writes, not later ones, nor other sessions’ commits', async () => {
  await query(db, 'CREATE TABLE w (id int4, s text)');
  await query(db, "INSERT INTO w VALUES (1, 'a'), (2, 'b')");
  const c = await session();
  const other = await session();
  try {
    await q(c, 'BEGIN');
    await q(c, "INSERT INTO w VALUES (3, 'mine')");
    await q(c, 'DELETE FROM w WHERE id = 1');
    assert.ok((await scanPlanOf(db, 'SELECT id, s FROM w', [], [])) !== null);
    await q(c, 'DECLARE s CURSOR FOR SELECT id, s FROM w');
    await q(c, "INSERT INTO w VALUES (4, 'later')");
    await q(other, "INSERT INTO w VALUES (5, 'other')");
    assert.equal(rowsOf(await q(c, 'FETCH ALL FROM s')), [['2', 'b'], ['3', 'mine']]);
    await q(c, 'ROLLBACK');
  } finally {
    c.end();
    other.end();
  }
});

test('statement_timeout stops a long FETCH from a streaming cursor, with nothing sent after the error', async () => {
  const base = await Database.open(tempDir());
  const t = await base.createTable('slow', [{ name: 'id', type: 'int4' }]);
  const sink = t.sink();
  const n = 20_000;
  await sink.write({ length: n, columns: [columnOf({ id: 'int4' }, Array.from({ length: n }, (_, i) => i))], selection: null });
  await sink.commit();
  // Each batch of `slow` takes 100 ms to read, as from a far object store.
  const view = Object.create(base) as Database;
  Object.defineProperty(view, 'table', {
    value: async (name: string) => {
      const table = await base.table(name);
      const v = Object.create(table) as typeof table;
      Object.defineProperty(v, 'scan', {
        value: (...args: Parameters<typeof table.scan>) => {
          const sc = table.scan(...args);
          const next = sc.next.bind(sc);
          Object.defineProperty(sc, 'next', { configurable: true, value: async () => { await new Promise((r) => setTimeout(r, 100)); return next(); } });
          return sc;
        },
      });
      return v;
    },
  });
  const server = await startServer({ db: view, port: 0, auth: { method: 'trust' } });
  const c = await RawClient.connect(server.port);
  try {
    c.send(fe.startup({ user: 'paxd', database: 'paxd' }));
    await c.untilReady();
    await q(c, 'BEGIN');
    await q(c, 'DECLARE s CURSOR FOR SELECT id FROM slow');
    assert.equal(rowsOf(await q(c, 'FETCH 2 FROM s')), [['0'], ['1']]);
    await q(c, "SET statement_timeout = '250ms'");
    const started = performance.now();
    const r = await q(c, 'FETCH ALL FROM s');
    assert.ok(performance.now() - started < 1500, 'stopped long before the scan’s end');
    assert.is(errorOf(r).C, '57014');
    await new Promise((res) => setTimeout(res, 400)); // the abandoned read settles meanwhile
    const after = await q(c, 'ROLLBACK');
    assert.equal([codes(after), tagsOf(after)], ['CZ', ['ROLLBACK']]);
  } finally {
    c.end();
    await server.close();
    await base.close();
  }
});

// ---- the encoder alone, against formatText over random values ----

function batchOf(columns: Column[], selection: Uint32Array | null): Batch {
  return { length: columns[0]!.length, columns, selection };
}

test('RowEncoder: every type, random values, NULLs, selections and segments give formatText’s bytes', () => {
  const rng = new Rng(testSeed());
  const types: PgType[] = [...TYPE_IDS.map((id) => ({ id }) as PgType), { id: 'numeric', precision: 12, scale: 2 }, { id: 'varchar', length: 5 }, { id: 'bpchar', length: 3 }];
  for (let k = 0; k < 40; k++) types.push(randomType(rng));
  for (const type of types) {
    for (let round = 0; round < 4; round++) {
      const n = rng.int(1, 300);
      const values = Array.from({ length: n }, () => (rng.chance(0.1) ? null : randomValue(type, rng)));
      const col = columnOf(type, values);
      let selection: Uint32Array | null = null;
      if (round % 2 === 1) selection = Uint32Array.from(Array.from({ length: n }, (_, i) => i).filter(() => rng.chance(0.6)));
      const batch = batchOf([col, columnOf({ id: 'int4' }, Array.from({ length: n }, (_, i) => i))], selection);
      const count = selection === null ? n : selection.length;
      const segments: Segment[] = [];
      for (let at = 0; at < count; ) {
        const to = Math.min(count, at + rng.int(1, 64));
        segments.push({ batch, from: at, to });
        at = to;
      }
      const encoder = new RowEncoder([
        { source: 0, type },
        { source: -1, type: { id: 'text' } },
        { source: 1, type: { id: 'int4' } },
        { source: 0, type },
      ]);
      const buf = encoder.encode(segments);
      const got: (string | null)[][] = [];
      for (let off = 0; off < buf.byteLength; ) {
        assert.is(buf[off], 0x44);
        const len = buf.readInt32BE(off + 1);
        got.push(dataRowOf(buf.subarray(off + 5, off + 1 + len)));
        off += 1 + len;
      }
      const expected = Array.from({ length: count }, (_, p) => {
        const i = selection === null ? p : selection[p]!;
        const v = getValue(col, i);
        const s = v === null ? null : formatText(type, v);
        return [s, null, String(i), s];
      });
      assert.equal(got, expected, `${JSON.stringify(type)} seed ${rng.seed}`);
    }
  }
});

test.run();
