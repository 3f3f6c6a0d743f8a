/**
 * Window functions against PostgreSQL 15 (issue #19, milestone 2): every statement of
 * fixtures/sql-window/*.sql runs on paxd (embedded) and on a throwaway PostgreSQL loaded with
 * the differential suite's t, tn and ty tables (./differential-setup.ts). The answers must
 * agree as ./differential.test.ts compares them (rows, text output, SQLSTATE), and so must the
 * result column types (RowDescription's type OIDs): row_number is bigint, percent_rank float8,
 * ntile int4, sum(int4) OVER … bigint.
 */
import { typedDifferential } from './typed-differential.js';

typedDifferential(['sql-window']);
