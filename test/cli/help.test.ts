/**
 * The help that `paxd sql --help` gives is true: every statement kind it lists, and every part
 * of a SELECT it names, runs through `paxd sql` (one process, statements on standard input) and
 * prints what PostgreSQL's psql would print for it (rows, or the command tag).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SQL_SELECT_PARTS, SQL_STATEMENTS } from '../../src/cli/main.js';
import { runCli } from '../support/spawn.js';
import { tempDir } from '../support/tmp.js';

type Kind = (typeof SQL_STATEMENTS)[number] | (typeof SQL_SELECT_PARTS)[number] | 'setup';

/** Examples in the order they run (each may use what the ones before made), with what each prints. */
const EXAMPLES: readonly { kind: Kind; sql: string; prints: string }[] = [
  { kind: 'CREATE/ALTER/DROP TABLE', sql: 'CREATE TABLE t (id int4 NOT NULL, s text)', prints: 'CREATE TABLE' },
  { kind: 'INSERT', sql: "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')", prints: 'INSERT 0 3' },
  { kind: 'SELECT', sql: 'SELECT id, s FROM t ORDER BY id', prints: 'id  s\n--  -\n1   a\n2   b\n3   c\n(3 rows)' },
  { kind: 'VALUES', sql: "VALUES (1, 'x'), (2, 'y')", prints: 'column1  column2\n-------  -------\n1        x\n2        y\n(2 rows)' },
  { kind: 'EXPLAIN [ANALYZE]', sql: 'EXPLAIN ANALYZE SELECT count(*) FROM t', prints: '' },
  { kind: 'UPDATE', sql: "UPDATE t SET s = 'B' WHERE id = 2", prints: 'UPDATE 1' },
  { kind: 'DELETE', sql: 'DELETE FROM t WHERE id = 3', prints: 'DELETE 1' },
  { kind: 'setup', sql: 'ALTER TABLE t ADD COLUMN n int8', prints: 'ALTER TABLE' },
  { kind: 'joins', sql: 'SELECT a.id, b.s FROM t AS a JOIN t AS b ON a.id = b.id ORDER BY a.id', prints: 'id  s\n--  -\n1   a\n2   B\n(2 rows)' },
  { kind: 'subqueries', sql: 'SELECT id FROM t WHERE id = (SELECT max(id) FROM t)', prints: 'id\n--\n2\n(1 row)' },
  { kind: 'WITH [RECURSIVE]', sql: 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT sum(n) FROM r', prints: 'sum\n---\n6\n(1 row)' },
  { kind: 'window functions', sql: 'SELECT id, row_number() OVER (ORDER BY id DESC) AS rn FROM t ORDER BY id', prints: 'id  rn\n--  --\n1   2\n2   1\n(2 rows)' },
  { kind: 'GROUP BY', sql: 'SELECT s, count(*) FROM t GROUP BY s ORDER BY s', prints: 's  count\n-  -----\nB  1\na  1\n(2 rows)' },
  { kind: 'UNION/INTERSECT/EXCEPT', sql: 'SELECT id FROM t UNION SELECT 7 INTERSECT SELECT 7 EXCEPT SELECT 1 ORDER BY 1', prints: 'id\n--\n2\n7\n(2 rows)' },
  { kind: 'ORDER BY … LIMIT', sql: 'SELECT id FROM t ORDER BY id DESC LIMIT 1', prints: 'id\n--\n2\n(1 row)' },
  { kind: 'CREATE TABLE AS', sql: 'CREATE TABLE c AS SELECT id * 10 AS x FROM t', prints: 'SELECT 2' },
  { kind: 'CREATE/DROP VIEW', sql: 'CREATE VIEW v AS SELECT x FROM c WHERE x > 10', prints: 'CREATE VIEW' },
  { kind: 'setup', sql: 'SELECT * FROM v', prints: 'x\n--\n20\n(1 row)' },
  { kind: 'setup', sql: 'DROP VIEW v', prints: 'DROP VIEW' },
  { kind: 'CREATE/ALTER/DROP ROLE', sql: 'CREATE ROLE reader LOGIN', prints: 'CREATE ROLE' },
  { kind: 'setup', sql: 'ALTER ROLE reader NOLOGIN', prints: 'ALTER ROLE' },
  { kind: 'GRANT', sql: 'GRANT SELECT ON t TO reader', prints: 'GRANT' },
  { kind: 'REVOKE', sql: 'REVOKE SELECT ON t FROM reader', prints: 'REVOKE' },
  { kind: 'setup', sql: 'DROP ROLE reader', prints: 'DROP ROLE' },
  { kind: 'TRUNCATE', sql: 'TRUNCATE c', prints: 'TRUNCATE TABLE' },
  { kind: 'setup', sql: 'SELECT count(*) FROM c', prints: 'count\n-----\n0\n(1 row)' },
  { kind: 'setup', sql: 'DROP TABLE c', prints: 'DROP TABLE' },
];

test('sql --help lists exactly the kinds the examples cover', async () => {
  const covered = new Set(EXAMPLES.map((e) => e.kind).filter((k) => k !== 'setup'));
  assert.equal([...covered].sort(), [...SQL_STATEMENTS, ...SQL_SELECT_PARTS].sort());
  const r = await runCli(['sql', '--help']);
  assert.is(r.code, 0, r.stderr);
  const help = r.stdout.replace(/\s+/g, ' ');
  for (const k of [...SQL_STATEMENTS, ...SQL_SELECT_PARTS]) assert.ok(help.includes(k), `sql --help does not name ${k}: ${help}`);
});

test('every kind sql --help names runs through paxd sql and prints what psql would', async () => {
  const input = EXAMPLES.map((e) => `${e.sql};\n`).join('');
  const r = await runCli(['sql', '--data', tempDir()], { stdin: Buffer.from(input) });
  assert.is(r.code, 0, r.stderr);
  // EXPLAIN ANALYZE's plan has timings: its lines are checked apart from the rest.
  const explain = /QUERY PLAN\n-+\n([\s\S]*?)\(\d+ rows\)\n/.exec(r.stdout);
  assert.ok(explain !== null, r.stdout);
  assert.match(explain[1]!, /^Aggregate .*\(actual time=[\d.]+\.\.[\d.]+ rows=1 loops=1\)/);
  assert.match(explain[1]!, /Execution Time: [\d.]+ ms/);
  const rest = r.stdout.replace(explain[0], '');
  assert.fixture(rest, EXAMPLES.filter((e) => e.prints !== '').map((e) => `${e.prints}\n`).join(''));
});

test.run();
