/**
 * Real clients stop each kind of long statement (issue #17, Done-when 3): psql's Ctrl-C typed
 * into a terminal (tmux) and pgjdbc's Statement.setQueryTimeout (Java 17, the Debian
 * libpostgresql-jdbc-java driver at /usr/share/java/postgresql.jar), against a cross join, a
 * sort, a hash aggregate, a compiled aggregate on the worker pool, a COPY TO and a COPY FROM
 * of a long stream. Both clients send a CancelRequest on a connection of their own; the
 * statement ends with 57014 and the session goes on. Every figure is printed; the assertion
 * allows STOP_BOUND_MS on a loaded 2-core machine (the target is 200 ms).
 *
 * COPY through pgjdbc: setQueryTimeout belongs to a Statement, and pgjdbc's CopyManager runs
 * COPY without one (it has no timeout of its own), so the COPY cases cancel with
 * PGConnection.cancelQuery() from a timer thread, the call setQueryTimeout's timer makes.
 * pgjdbc does not read the server's answer while a COPY FROM sends, so that case's figure is
 * a bound: the stream goes on for STOP_BOUND_MS after the cancel, and 57014 at its end (not
 * COPY n) says the server had stopped it within that time.
 *
 * One daemon (in this process, so the test sees the query workers) and one set of tables
 * serve every case; one psql and one JVM run all of theirs.
 * The tools are required, not optional: CI installs tmux, a JDK and libpostgresql-jdbc-java (.ci/run).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { parallelBusy } from '../../src/engine/compile/parallel.js';
import { tempDir } from '../support/tmp.js';
import { createLongTables, LONG } from './cancel-tables.js';

const run = promisify(execFile);
const JDBC_JAR = '/usr/share/java/postgresql.jar';
/** 200 ms is the target; tests allow this much on a shared 2-core CI machine (tmux's own round trips included). */
const STOP_BOUND_MS = 600;

/**
 * The statements, by kind. The parallel aggregate counts distinct ids besides LONG's
 * aggregates, so that it still runs when pgjdbc's one-second timeout fires on a fast machine.
 */
const KINDS: Record<string, string> = {
  'cross join': LONG['cross join']!,
  sort: LONG.sort!,
  'hash aggregate': LONG['hash aggregate']!,
  'compiled parallel aggregate': 'select k, count(distinct id), count(distinct v), sum(v), avg(v), min(id), max(id), count(*) from big where v > -1 group by k',
};
/** COPY TO: 8 million lines formatted before the first is sent. */
const COPY_TO_QUERY = 'select a.id, b.id, a.s from a, b where b.id < 400';
/** Lines a COPY FROM sends at most (it is cancelled a second in). */
const COPY_FROM_LINES = 200_000_000;

let db: Database;
let srv: RunningServer;
let dir: string;
const figures: string[] = [];
/** performance.now() of each CancelRequest the server received. */
const cancels: number[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  dir = tempDir();
  db = await createLongTables(join(dir, 'data'));
  await db.createTable('sink', [{ name: 'id', type: { id: 'int8' } }] as never);
  // When each CancelRequest reached the server (its log line), to tell the server's part of a
  // psql figure from tmux's and psql's own.
  const log = {
    info: (_f: Record<string, unknown>, message: string) => void (message === 'wire: cancel request' && cancels.push(performance.now())),
    warn: () => undefined,
  };
  srv = await startServer({ db, port: 0, auth: { method: 'trust' }, log });
  // The query workers start (and, under tsx, compile the engine) on first use.
  const c = new pg.Client({ host: '127.0.0.1', port: srv.port, user: 'paxd', database: 'paxd' });
  await c.connect();
  await c.query('select k % 10 as g, count(*) from big group by 1');
  await c.end();
});

test.after(async () => {
  await srv.close();
  await db.close();
  console.log(`\n${figures.join('\n')}`);
});

/** What psql is given for each case, and how long the statement runs before Ctrl-C. */
const PSQL_CASES: readonly (readonly [kind: string, input: string, runMs: number])[] = [
  ...Object.entries(KINDS).map(([kind, sql]) => [kind, `${sql};`, kind.includes('parallel') ? 500 : 1000] as const),
  ['COPY TO (\\copy … to /dev/null)', `\\copy (${COPY_TO_QUERY}) to '/dev/null'`, 1000],
  ['COPY FROM (\\copy … from program)', `\\copy sink from program 'seq 1 ${COPY_FROM_LINES}'`, 1000],
];

test('psql: Ctrl-C typed in a terminal (tmux) stops every kind of long statement with 57014, and psql goes on', async () => {
  // A tmux server of our own (-L), so that nothing of the user's sessions is touched.
  const sock = `paxd-cancel-${process.pid}`;
  const env = { ...process.env, PGSSLMODE: 'disable', TMUX: '' };
  const tmux = (...args: string[]) => run('tmux', ['-L', sock, ...args], { env });
  await tmux('new-session', '-d', '-s', 'psql', '-x', '250', '-y', '50', `psql -X -h 127.0.0.1 -p ${srv.port} -U paxd -d paxd`);
  try {
    await tmux('set-option', '-t', 'psql', 'history-limit', '50000');
    /** The whole pane, history included, lines joined where they wrapped. */
    const screen = async () => (await tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'psql')).stdout;
    const count = (text: string, s: string) => s.split(text).length - 1;
    const waitFor = async (text: string, times: number, ms: number): Promise<number> => {
      const deadline = performance.now() + ms;
      for (;;) {
        if (count(text, await screen()) >= times) return performance.now();
        if (performance.now() > deadline)
          throw new Error(`psql did not print ${JSON.stringify(text)} (${times}×) within ${ms} ms:\n${(await screen()).slice(-3000)}`);
        await sleep(5);
      }
    };
    // tmux reads an argument that ends in ';' as the end of its command: '\\;' is the character.
    const type = (line: string) => tmux('send-keys', '-t', 'psql', '-l', line.replace(/;$/, '\\;')).then(() => tmux('send-keys', '-t', 'psql', 'Enter'));
    await waitFor('paxd=', 1, 10_000);
    // psql prints the SQLSTATE with each error. On Ctrl-C during \copy from, psql both sends the
    // CancelRequest and ends the copy with CopyFail ("canceled by user"); whichever the server
    // reads first gives the error, 57014 either way (as PostgreSQL's).
    await type('\\set VERBOSITY verbose');
    const CANCELED = 'ERROR:  57014: ';
    const failures: string[] = [];
    let errors = 0;
    for (const [kind, input, runMs] of PSQL_CASES) {
      await type(input);
      await sleep(runMs);
      const before = await screen();
      if (count(CANCELED, before) !== errors || /\n(COPY \d+|\(\d+ rows?\))/.test(before.slice(before.lastIndexOf(input.slice(0, 40)))))
        failures.push(`${kind}: ended before the Ctrl-C, after ${runMs} ms`);
      const busy = parallelBusy();
      const sent = performance.now();
      await tmux('send-keys', '-t', 'psql', 'C-c');
      errors++;
      const at = await waitFor(CANCELED, errors, 10_000);
      // psql may end a \copy from with CopyFail before its CancelRequest lands (see above): the
      // error can be on the screen before the server logs the cancel, so wait a little for it.
      let arrived = cancels.find((t) => t >= sent);
      for (let i = 0; arrived === undefined && i < 100; i++) {
        await sleep(10);
        arrived = cancels.find((t) => t >= sent);
      }
      if (arrived === undefined && kind.startsWith('COPY FROM')) {
        // Ended by psql's CopyFail alone (57014 on the screen, checked above): the figure is
        // from the keystroke.
        figures.push(`psql Ctrl-C (tmux): ${kind}: ERROR printed ${(at - sent).toFixed(1)} ms after the keystroke (CopyFail; no CancelRequest)`);
        if (at - sent >= STOP_BOUND_MS + 400) failures.push(`${kind}: ${(at - sent).toFixed(1)} ms after the keystroke`);
        await waitFor('paxd=', errors + 1, 10_000);
        continue;
      }
      if (arrived === undefined) {
        failures.push(`${kind}: no CancelRequest reached the server`);
        continue;
      }
      // The server's part: from the CancelRequest to the error on the screen (one screen poll
      // included); 0 when the error came first (CopyFail).
      const ms = Math.max(0, at - arrived);
      figures.push(
        `psql Ctrl-C (tmux): ${kind}: ERROR printed ${ms.toFixed(1)} ms after the CancelRequest reached the server (${(at - sent).toFixed(1)} ms after the keystroke)${kind.includes('parallel') ? `; ${busy} worker partition(s) were running` : ''}`,
      );
      if (ms >= STOP_BOUND_MS) failures.push(`${kind}: ${ms.toFixed(1)} ms`);
      await waitFor('paxd=', errors + 1, 10_000);
    }
    // The session goes on: the next statement answers, and the COPY FROM committed nothing.
    await type('select 41 + 1 as answer, (select count(*) from sink) as sunk;');
    await waitFor('42 |    0\n', 1, 10_000);
    assert.equal(failures, []);
  } finally {
    await tmux('kill-server').catch(() => undefined);
  }
});

/**
 * One JVM runs every case on one connection: setQueryTimeout(1) for the queries, and for COPY
 * (CopyManager, no Statement) cancelQuery() from a timer one second in. Each case prints
 * `case=KIND state=SQLSTATE ms=MS_AFTER_THE_CANCEL message=…`, then the connection answers
 * `select 41 + 1`.
 */
const JAVA = `
import java.io.*;
import java.sql.*;
import java.util.*;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

public class Cancel {
  interface Body { void run() throws Exception; }

  static void report(String kind, long cancelAt, Exception e) {
    double ms = (System.nanoTime() - cancelAt) / 1e6;
    String state = e instanceof SQLException ? ((SQLException) e).getSQLState() : e.getClass().getName();
    System.out.println("case=" + kind + " state=" + state + " ms=" + ms + " message=" + String.valueOf(e.getMessage()).split("\\n")[0]);
  }

  static void after(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("select 41 + 1")) {
      r.next();
      System.out.println("after=" + r.getInt(1));
    }
  }

  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/paxd?user=paxd&sslmode=disable";
    try (Connection c = DriverManager.getConnection(url)) {
      for (int i = 1; i + 1 < args.length - 1; i += 2) {
        String kind = args[i], sql = args[i + 1];
        try (Statement s = c.createStatement()) {
          s.setQueryTimeout(1);
          long started = System.nanoTime();
          try (ResultSet r = s.executeQuery(sql)) {
            System.out.println("case=" + kind + " state=none ms=0 message=no error");
          } catch (SQLException e) {
            report(kind, started + 1_000_000_000L, e);
          }
        }
        after(c);
      }
      CopyManager copy = ((PGConnection) c).getCopyAPI();
      copyCase(c, "COPY TO (CopyManager.copyOut)", () -> copy.copyOut("copy (" + args[args.length - 1] + ") to stdout", OutputStream.nullOutputStream()));
      // pgjdbc reads nothing from the server while a COPY FROM sends (writeToCopy and flushCopy
      // only write): it learns of the cancel at endCopy, after the whole stream, against
      // PostgreSQL too. So the stream goes on for GRACE ms after the cancel, as a long one
      // would, then ends: 57014 at endCopy says the server had stopped the COPY by then; had it
      // not, CopyDone would commit the rows.
      InputStream lines = new InputStream() {
        long n = 0; byte[] line = new byte[0]; int at = 0;
        public int read() throws IOException {
          if (at == line.length) {
            if (n == ${COPY_FROM_LINES}L || (cancelSent != 0 && System.nanoTime() - cancelSent > ${STOP_BOUND_MS}_000_000L)) return -1;
            line = (++n + "\\n").getBytes(); at = 0;
          }
          return line[at++];
        }
        public int read(byte[] b, int off, int len) throws IOException {
          int i = 0;
          for (; i < len; i++) { int x = read(); if (x < 0) break; b[off + i] = (byte) x; }
          return i == 0 && len > 0 ? -1 : i;
        }
      };
      copyCase(c, "COPY FROM (CopyManager.copyIn)", () -> copy.copyIn("copy sink from stdin", lines));
      try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("select count(*) from sink")) {
        r.next();
        System.out.println("sunk=" + r.getLong(1));
      }
    }
  }

  /** When the current COPY's cancel was sent (0: not yet). */
  static volatile long cancelSent = 0;

  static void copyCase(Connection c, String kind, Body body) throws Exception {
    long[] cancelAt = {0};
    cancelSent = 0;
    Timer t = new Timer(true);
    t.schedule(new TimerTask() {
      public void run() {
        cancelAt[0] = System.nanoTime();
        cancelSent = cancelAt[0];
        try { ((PGConnection) c).cancelQuery(); } catch (SQLException e) { throw new RuntimeException(e); }
      }
    }, 1000);
    try {
      body.run();
      System.out.println("case=" + kind + " state=none ms=0 message=no error");
    } catch (SQLException e) {
      report(kind, cancelAt[0], e);
    } finally {
      t.cancel();
    }
    after(c);
  }
}
`;

test('pgjdbc: setQueryTimeout(1) (and cancelQuery() for CopyManager) stops every kind of long statement one second in with 57014; the connection goes on', async () => {
  const src = join(dir, 'Cancel.java');
  writeFileSync(src, JAVA);
  const args = [String(srv.port), ...Object.entries(KINDS).flat(), COPY_TO_QUERY];
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn('java', ['-cp', JDBC_JAR, src, ...args]);
    let text = '';
    p.stdout.on('data', (d: Buffer) => (text += d.toString()));
    p.stderr.on('data', (d: Buffer) => (text += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`java exited with ${code}:\n${text}`))));
  });
  const cases = [...out.matchAll(/case=(.+?) state=(\S+) ms=([\d.E-]+) message=(.*)/g)];
  const kinds = [...Object.keys(KINDS), 'COPY TO (CopyManager.copyOut)', 'COPY FROM (CopyManager.copyIn)'];
  assert.equal(
    cases.map((m) => m[1]),
    kinds,
    out,
  );
  const failures: string[] = [];
  for (const m of cases) {
    const [, kind, state, ms, message] = m;
    const how = kind!.startsWith('COPY') ? 'cancelQuery() at 1 s' : 'setQueryTimeout(1)';
    if (state !== '57014' || !message!.includes('canceling statement due to user request')) failures.push(`${kind}: ${state} ${message}`);
    if (kind!.startsWith('COPY FROM')) {
      // The figure is when the stream ended (STOP_BOUND_MS after the cancel), not when the server stopped.
      figures.push(
        `pgjdbc ${how}: ${kind}: ${state} at endCopy, the stream having gone on ${Number(ms).toFixed(1)} ms past the cancel: the server had stopped the COPY within that time`,
      );
      continue;
    }
    figures.push(`pgjdbc ${how}: ${kind}: ${state} ${Number(ms).toFixed(1)} ms after the cancel`);
    if (Number(ms) >= STOP_BOUND_MS) failures.push(`${kind}: ${Number(ms).toFixed(1)} ms`);
  }
  assert.equal(failures, [], out);
  assert.is(out.split('after=42').length - 1, kinds.length, out);
  assert.match(out, 'sunk=0');
});

test.run();
