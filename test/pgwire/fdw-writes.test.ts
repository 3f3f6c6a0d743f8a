/**
 * Writes through postgres_fdw (docs/MIRROR.md): a real PostgreSQL 15 (test/support/pg.ts) writes a
 * paxd table through a foreign table on paxd serve, and every statement must end exactly as
 * on a heap copy of the same table in that PostgreSQL — the same psql output (command tags
 * with their affected-row counts, RETURNING rows) and then the same table content. Covered:
 * INSERT row by row and with batch_size, INSERT … SELECT, RETURNING, direct UPDATE/DELETE,
 * the ctid path (a local non-shippable condition forces it), transactions with ROLLBACK and
 * savepoints, and TRUNCATE.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';

let pg: Postgres;
let db: Database;
let srv: RunningServer;

const COLUMNS = 'id int4 NOT NULL, v text COLLATE "C", n numeric(12,2), ts timestamptz';

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  await db.createTable('fw', [
    { name: 'id', type: 'int4', notNull: true },
    { name: 'v', type: 'text' },
    { name: 'n', type: 'numeric(12,2)' },
    { name: 'ts', type: 'timestamptz' },
  ]);
  await db.createTable('fw_cust', [
    { name: 'id', type: 'int4', notNull: true },
    { name: 'region', type: 'text' },
  ]);
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  await pg.query(`
    CREATE EXTENSION IF NOT EXISTS postgres_fdw;
    DROP SERVER IF EXISTS paxd_w CASCADE;
    CREATE SERVER paxd_w FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '${srv.port}', dbname 'paxd');
    CREATE USER MAPPING FOR postgres SERVER paxd_w OPTIONS (user 'paxd');
    CREATE FOREIGN TABLE fw_ft (${COLUMNS}) SERVER paxd_w OPTIONS (table_name 'fw');
    DROP TABLE IF EXISTS fw_heap;
    CREATE TABLE fw_heap (${COLUMNS});
    CREATE FOREIGN TABLE fw_cust_ft (id int4 NOT NULL, region text COLLATE "C") SERVER paxd_w OPTIONS (table_name 'fw_cust');
    DROP TABLE IF EXISTS fw_cust_heap;
    CREATE TABLE fw_cust_heap (id int4 NOT NULL, region text COLLATE "C");
  `);
});

test.after(async () => {
  await pg.query('DROP SERVER IF EXISTS paxd_w CASCADE; DROP TABLE IF EXISTS fw_heap, fw_cust_heap').catch(() => undefined);
  await srv.close();
  await db.close();
});

/** psql's output of `sql` (with tags), RETURNING rows in sorted order (row order is the storage's). */
async function run(sql: string): Promise<string> {
  const out = await pg.query(`\\set QUIET off\n${sql}`);
  const lines = out.split('\n');
  const blocks: string[][] = [[]];
  for (const l of lines) {
    blocks[blocks.length - 1]!.push(l);
    if (/^(INSERT \d+ \d+|UPDATE \d+|DELETE \d+|SELECT \d+|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|TRUNCATE TABLE|ALTER FOREIGN TABLE)$/.test(l)) blocks.push([]);
  }
  return blocks.map((b) => [...b.slice(0, -1).sort(), ...b.slice(-1)].join('\n')).join('\n');
}

/** Runs `sql` with %T as the foreign table and as the heap table: same output, then same content. */
async function same(sql: string): Promise<void> {
  const theirs = await run(sql.replaceAll('%T', 'fw_heap').replaceAll('%C', 'fw_cust_heap'));
  const mine = await run(sql.replaceAll('%T', 'fw_ft').replaceAll('%C', 'fw_cust_ft'));
  assert.is(mine, theirs, sql);
  const content = 'SELECT * FROM %T ORDER BY id, v';
  assert.is(await pg.query(content.replaceAll('%T', 'fw_ft')), await pg.query(content.replaceAll('%T', 'fw_heap')), `content after: ${sql}`);
}

test('INSERT: row by row, multi-row VALUES, INSERT … SELECT, RETURNING, ON CONFLICT DO NOTHING, batch_size', async () => {
  await same("INSERT INTO %T VALUES (1, 'a', 1.5, '2024-05-01 10:00:00+00')");
  await same("INSERT INTO %T (id, v) VALUES (2, 'b'), (3, NULL), (4, 'it''s')");
  await same("INSERT INTO %T SELECT g, 'g' || g, g * 0.125, '2024-01-01'::timestamptz + g * interval '1 hour' FROM generate_series(5, 40) g");
  await same("INSERT INTO %T VALUES (41, 'r', 2.005, NULL) RETURNING id, v, n");
  await same("INSERT INTO %T VALUES (42, 'dup', 0, NULL) ON CONFLICT DO NOTHING");
  await pg.query("ALTER FOREIGN TABLE fw_ft OPTIONS (ADD batch_size '4')");
  try {
    await same("INSERT INTO %T SELECT g, 'batch', g, NULL FROM generate_series(50, 59) g");
  } finally {
    await pg.query("ALTER FOREIGN TABLE fw_ft OPTIONS (DROP batch_size)");
  }
  await same("COPY %T FROM PROGRAM 'printf \"60\\tcopied\\t6\\t\\\\N\\n61\\tcopied\\t7\\t\\\\N\\n\"'");
});

test('direct UPDATE and DELETE, with RETURNING and parameters', async () => {
  assert.match(await pg.query("EXPLAIN (VERBOSE, COSTS OFF) UPDATE fw_ft SET v = 'upd', n = n * 2 WHERE id = 5"), 'Foreign Update on public.fw_ft');
  await same("UPDATE %T SET v = 'upd', n = n * 2 WHERE id = 5");
  await same("UPDATE %T SET v = v || '!' WHERE id >= 7 AND id <= 9 RETURNING id, v");
  await same('DELETE FROM %T WHERE id = 6');
  await same('DELETE FROM %T WHERE id = 10 RETURNING id, v, n, ts');
  await same('UPDATE %T SET n = NULL WHERE v IS NULL');
  await same('DELETE FROM %T WHERE id = 1000');
  await same("PREPARE u(text, int) AS UPDATE %T SET v = $1 WHERE id = $2; EXECUTE u('p1', 11); EXECUTE u('p2', 12); EXECUTE u('p3', 13); EXECUTE u('p4', 14); EXECUTE u('p5', 15); EXECUTE u('p6', 16); EXECUTE u('p7', 17); DEALLOCATE u");
});

test('the ctid path: conditions PostgreSQL evaluates locally', async () => {
  const plan = await pg.query("EXPLAIN (VERBOSE, COSTS OFF) UPDATE fw_ft SET v = 'ctid' WHERE id % 3 = 0 AND random() >= 0");
  assert.match(plan, 'Remote SQL: UPDATE public.fw SET v = $2 WHERE ctid = $1');
  assert.match(plan, 'FOR UPDATE');
  await same("UPDATE %T SET v = 'ctid' WHERE id % 3 = 0 AND random() >= 0");
  await same('UPDATE %T SET n = n + 1 WHERE random() >= 0 AND id > 30 RETURNING id, n');
  await same('DELETE FROM %T WHERE id % 5 = 0 AND random() >= 0');
  await same('DELETE FROM %T WHERE random() >= 0 AND id > 55 RETURNING id, v');
});

test('UPDATE … FROM and DELETE … USING another foreign table: the join is shipped to paxd or done locally', async () => {
  await same("INSERT INTO %C SELECT g, CASE WHEN g % 2 = 0 THEN 'west' ELSE 'east' END FROM generate_series(1, 40) g");
  assert.match(await pg.query("EXPLAIN (VERBOSE, COSTS OFF) DELETE FROM fw_ft r1 USING fw_cust_ft r2 WHERE r1.id = r2.id AND r2.id < 10 AND r2.region = 'west'"), 'USING public.fw_cust r2');
  await same("DELETE FROM %T r1 USING %C r2 WHERE r1.id = r2.id AND r2.id < 10 AND r2.region = 'west'");
  await same("UPDATE %T t SET v = c.region FROM %C c WHERE t.id = c.id AND c.id BETWEEN 10 AND 20");
  await same("DELETE FROM %T t USING %C c WHERE t.id = c.id AND c.region = 'east' AND c.id > 30 RETURNING t.id, c.region");
});

test('transactions: ROLLBACK, savepoints, several statements committed together', async () => {
  await same("BEGIN; INSERT INTO %T VALUES (70, 'tx', 1, NULL); UPDATE %T SET v = 'tx' WHERE id < 5; SELECT count(*) FROM %T; ROLLBACK");
  await same("BEGIN; INSERT INTO %T VALUES (71, 'tx', 1, NULL); SAVEPOINT a; UPDATE %T SET v = 'sp' WHERE id < 20; DELETE FROM %T WHERE id = 71; ROLLBACK TO a; UPDATE %T SET v = 'kept' WHERE id = 2; SELECT count(*) FROM %T WHERE v = 'sp'; COMMIT");
  await same("BEGIN; UPDATE %T SET n = 0 WHERE id = 3 AND random() >= 0; DELETE FROM %T WHERE id = 4; INSERT INTO %T VALUES (72, 'c', 2, NULL); SELECT count(*), sum(n) FROM %T; COMMIT");
});

test('TRUNCATE, and rows after it', async () => {
  await same('TRUNCATE %T');
  await same("INSERT INTO %T VALUES (1, 'after', 1, NULL)");
  await same("BEGIN; INSERT INTO %T VALUES (2, 'x', 2, NULL); TRUNCATE %T; INSERT INTO %T VALUES (3, 'y', 3, NULL); COMMIT");
});

test.run();
