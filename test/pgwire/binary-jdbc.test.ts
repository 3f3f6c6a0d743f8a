/**
 * pgjdbc's server-prepared, binary path against paxd and PostgreSQL 15 (issue #17, Done-when
 * 5): with prepareThreshold=-1 every statement is a named server-side statement and pgjdbc
 * asks for binary results for the types it can read in binary. A Java program reads each
 * special value (the same list as the psycopg 3 test) — getString, getObject, the bytes
 * pgjdbc received — and binds Java's special values as parameters read back as text; its
 * output from the two servers must be equal. Needs Java 17 and Debian's libpostgresql-jdbc-java
 * (/usr/share/java/postgresql.jar).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { startPostgres, type Postgres } from '../support/pg.js';
import { tempDir } from '../support/tmp.js';
import { SPECIAL_VALUES } from './binary-compare.js';

const JDBC_JAR = '/usr/share/java/postgresql.jar';

const JAVA = `
import java.sql.*;
import java.math.BigDecimal;
import java.util.*;
import org.postgresql.PGStatement;

public class BinaryValues {
  static String hex(byte[] b) {
    if (b == null) return "null";
    StringBuilder s = new StringBuilder();
    for (byte x : b) s.append(String.format("%02x", x));
    return s.toString();
  }

  static String describe(Object o) {
    if (o == null) return "null";
    if (o instanceof java.sql.Array) {
      try {
        Object a = ((java.sql.Array) o).getArray();
        return "array " + ((java.sql.Array) o).getBaseTypeName() + " " + Arrays.deepToString((Object[]) a);
      } catch (SQLException e) { return "array error " + e.getSQLState(); }
    }
    if (o instanceof Timestamp) return "Timestamp " + o + " " + ((Timestamp) o).getTime();
    if (o instanceof java.sql.Date) return "Date " + o + " " + ((java.sql.Date) o).getTime();
    return o.getClass().getSimpleName() + " " + o;
  }

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.setProperty("user", args[1]);
    p.setProperty("prepareThreshold", "-1");
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + args[0] + "/" + args[1], p)) {
      for (int i = 2; i < args.length; i += 2) {
        String sql = "SELECT " + args[i] + "::" + args[i + 1] + " AS v";
        for (int round = 0; round < 2; round++) {
          try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            String s;
            try { s = rs.getString(1); } catch (RuntimeException e) { s = "getString error " + e.getClass().getSimpleName() + ": " + e.getMessage(); }
            String o;
            try { o = describe(rs.getObject(1)); } catch (Exception e) { o = "getObject error " + e.getClass().getSimpleName(); }
            String b;
            try { b = hex(rs.getBytes(1)); } catch (Exception e) { b = "getBytes error"; }
            out.add(sql + " #" + round + " type=" + rs.getMetaData().getColumnTypeName(1) + " string=" + s + " object=" + o + " bytes=" + b);
          } catch (SQLException e) {
            out.add(sql + " #" + round + " ERROR " + e.getSQLState());
          }
        }
      }
      Object[][] params = {
        {"float8", Double.NaN}, {"float8", Double.POSITIVE_INFINITY}, {"float8", Double.NEGATIVE_INFINITY}, {"float8", -0.0d},
        {"float8", Double.MAX_VALUE}, {"float8", Double.MIN_VALUE}, {"float4", Float.NaN}, {"float4", Float.MAX_VALUE},
        {"int8", Long.MAX_VALUE}, {"int8", Long.MIN_VALUE}, {"int4", Integer.MIN_VALUE}, {"int2", Short.MIN_VALUE},
        {"numeric", new BigDecimal("-123456789012345678901234567890.000000000000000000000000000001")}, {"numeric", new BigDecimal("1E-30")},
        {"date", new java.sql.Date(PGStatement.DATE_POSITIVE_INFINITY)}, {"date", new java.sql.Date(PGStatement.DATE_NEGATIVE_INFINITY)},
        {"timestamp", new Timestamp(PGStatement.DATE_POSITIVE_INFINITY)}, {"timestamp", new Timestamp(PGStatement.DATE_NEGATIVE_INFINITY)},
        {"bool", Boolean.TRUE}, {"bytea", new byte[] {0, (byte) 255}},
      };
      for (Object[] x : params) {
        String sql = "SELECT ?::" + x[0] + "::text AS t";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
          ps.setObject(1, x[1]);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            out.add("param " + x[0] + " " + x[1] + " -> " + rs.getString(1));
          }
        } catch (SQLException e) {
          out.add("param " + x[0] + " " + x[1] + " ERROR " + e.getSQLState());
        }
      }
    }
    for (String line : out) System.out.println(line);
  }
}
`;

let pg: Postgres;
let db: Database;
let srv: RunningServer;
let classes: string;

test.before(async () => {
  pg = await startPostgres();
  db = await Database.open(tempDir());
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
  classes = join(tempDir(), 'classes');
  mkdirSync(classes, { recursive: true });
  const source = join(classes, 'BinaryValues.java');
  writeFileSync(source, JAVA);
  await promisify(execFile)('javac', ['-cp', JDBC_JAR, '-d', classes, source], { timeout: 120_000 });
});

test.after(async () => {
  await srv.close();
  await db.close();
});

async function java(port: number, user: string): Promise<string[]> {
  const args = ['-Duser.timezone=UTC', '-cp', `${JDBC_JAR}:${classes}`, 'BinaryValues', String(port), user, ...SPECIAL_VALUES.flat()];
  const r = await promisify(execFile)('java', args, { encoding: 'utf8', timeout: 120_000 });
  return r.stdout.trimEnd().split('\n');
}

test('pgjdbc server-prepared binary reads and binds special values as against PostgreSQL 15', async () => {
  const got = await java(srv.port, 'paxd');
  const want = await java(pg.port, 'postgres');
  assert.is(want.length, SPECIAL_VALUES.length * 2 + 20);
  const problems = want.flatMap((w, i) => (got[i] === w ? [] : [`paxd:       ${got[i]}\nPostgreSQL: ${w}`]));
  assert.equal(problems, []);
});

test.run();
