/**
 * The tables the long-statement tests stop (./cancel-long.test.ts, ../daemon/signals.test.ts,
 * ../engine/cancel.test.ts): small tables whose joins run for minutes, and one large enough for
 * the compiled aggregate to run on the worker pool for seconds.
 *
 *   a, b   id int4, s text: CROSS_ROWS rows each (a cross join is CROSS_ROWS² pairs)
 *   big    id int8, k int4 (BIG_KEYS groups), v float8: BIG_ROWS rows in groups of 131,072
 */
import { Database } from '../../src/table/database.js';
import { columnOf, type Value } from '../../src/types/index.js';
import { Rng } from '../support/random.js';

export const CROSS_ROWS = 20_000;
export const BIG_ROWS = 4_000_000;
export const BIG_KEYS = 50_000;

/** The SQL of each kind of long statement, over these tables. */
export const LONG: Record<string, string> = {
  'cross join': 'select count(*) from a, b',
  sort: 'select a.id, b.id, a.s from a, b where b.id < 60 order by a.s || b.s desc, a.id',
  'hash aggregate': 'select a.id % 1000 as x, b.id % 7 as y, count(*), max(a.s) from a, b group by 1, 2',
  'compiled parallel aggregate': 'select k, count(distinct v), sum(v), avg(v), min(id), max(id), count(*) from big where v > -1 group by k',
  copy: 'copy (select a.id, b.id, a.s from a, b where b.id < 400) to stdout',
};

/** A statement that never ends in any test's lifetime: a three-way cross join (8·10¹² rows). */
export const RUNAWAY = 'select count(*) from a, b, a as c';

async function load(db: Database, name: string, columns: { name: string; type: string }[], values: Value[][], groupRows?: number): Promise<void> {
  const t = await db.createTable(name, columns as never, groupRows === undefined ? {} : { rowGroupRows: groupRows } as never);
  const sink = t.sink();
  const chunk = 262_144;
  const n = values[0]!.length;
  for (let at = 0; at < n; at += chunk) {
    const end = Math.min(n, at + chunk);
    await sink.write({ length: end - at, columns: columns.map((c, j) => columnOf({ id: c.type } as never, values[j]!.slice(at, end))), selection: null });
  }
  await sink.commit();
}

/** Creates a, b (and `big` unless `withBig` is false) in `dir`. */
export async function createLongTables(dir: string, withBig = true): Promise<Database> {
  const db = await Database.open(dir);
  const rng = new Rng(0x5eed);
  const word = () => Array.from({ length: 12 }, () => String.fromCharCode(97 + rng.int(0, 25))).join('');
  for (const name of ['a', 'b']) {
    const ids = Array.from({ length: CROSS_ROWS }, (_v, i) => i);
    await load(db, name, [{ name: 'id', type: 'int4' }, { name: 's', type: 'text' }], [ids, ids.map(word)]);
  }
  if (withBig) {
    const id: Value[] = new Array(BIG_ROWS);
    const k: Value[] = new Array(BIG_ROWS);
    const v: Value[] = new Array(BIG_ROWS);
    for (let i = 0; i < BIG_ROWS; i++) {
      id[i] = BigInt(i);
      k[i] = i % BIG_KEYS;
      v[i] = (i % 1000) / 10;
    }
    await load(db, 'big', [{ name: 'id', type: 'int8' }, { name: 'k', type: 'int4' }, { name: 'v', type: 'float8' }], [id, k, v], 131_072);
  }
  return db;
}
