/**
 * The tables the client tests of issue #21 (test/pgwire/jdbc-metadata.test.ts,
 * pandas-clients.test.ts, postgres-js-catalog.test.ts) create on paxd and, as heap tables, on
 * PostgreSQL 15: one column of every type paxd stores, NOT NULL and DEFAULT, a view.
 */
export const JM_TABLES: readonly string[] = [
  `CREATE TABLE jm_all (id int4 NOT NULL, i2 int2, i4 int4 DEFAULT 7, i8 int8, f4 float4, f8 float8, b bool, t text DEFAULT 'x', vc varchar(12), c bpchar(3),
    by bytea, d date, ts timestamp, tz timestamptz, n numeric, n12 numeric(12,2), u uuid, jb jsonb, j json)`,
  `INSERT INTO jm_all VALUES
    (1, -2, 40000, 9000000000, 1.5, 2.25, true, 'héllo', 'var', 'ab', '\\x00ff', '2024-02-29', '2024-01-02 03:04:05.678', '2024-01-02 03:04:05+00', 123.456, 12.30,
     'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '{"b":  1}'),
    (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  'CREATE TABLE jm_other (id int8, label text NOT NULL)',
  "INSERT INTO jm_other VALUES (1, 'one'), (2, 'two')",
  'CREATE VIEW jm_view AS SELECT id, label FROM jm_other',
];
