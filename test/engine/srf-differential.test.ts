/**
 * Set-returning functions, LATERAL and grouping sets against PostgreSQL 15 (issue #19, Build
 * list; Done-when 3): every statement of fixtures/sql-srf/, fixtures/sql-lateral/ and
 * fixtures/sql-grouping/ runs on paxd (embedded) and on a throwaway PostgreSQL loaded with the
 * differential suite's t, tn and ty tables (./differential-setup.ts). The answers must agree
 * as ./differential.test.ts compares them (rows, text output, SQLSTATE), and so must the result
 * column types (RowDescription's type OIDs): generate_series(int8) is bigint, WITH ORDINALITY's
 * column bigint, GROUPING() integer.
 */
import { typedDifferential } from './typed-differential.js';

typedDifferential(['sql-srf', 'sql-lateral', 'sql-grouping']);
