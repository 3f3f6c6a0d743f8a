/**
 * json and jsonb against PostgreSQL 15 (issue #19, the json/jsonb operators and functions):
 * every statement of fixtures/sql-json/*.sql runs on paxd (embedded) and on a throwaway
 * PostgreSQL loaded with the differential suite's t, tn and ty tables (./differential-setup.ts;
 * ty.js is jsonb). The answers must agree as ./differential.test.ts compares them (rows, text
 * output, SQLSTATE), and so must the result column types (RowDescription's type OIDs): `->` on
 * jsonb is jsonb (3802), on json json (114), `->>` text.
 */
import { typedDifferential } from './typed-differential.js';

typedDifferential(['sql-json']);
