/**
 * Real clients stop a long statement (issue #17, Done-when 3): psql's Ctrl-C typed into a
 * terminal (tmux), and pgjdbc's Statement.setQueryTimeout (Java 17, the Debian
 * libpostgresql-jdbc-java driver at /usr/share/java/postgresql.jar). Both send a CancelRequest
 * on a connection of their own; the statement ends with 57014 and the session goes on.
 * The tools are required, not optional: CI installs tmux, openjdk-17-jdk-headless and
 * libpostgresql-jdbc-java (.ci/run).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Database } from '../../src/table/database.js';
import { startServer, type RunningServer } from '../../src/pgwire/index.js';
import { tempDir } from '../support/tmp.js';
import { createLongTables, LONG } from './cancel-tables.js';

const run = promisify(execFile);
const JDBC_JAR = '/usr/share/java/postgresql.jar';
/** 200 ms is the target; tests allow this much on a shared 2-core CI machine. */
const STOP_BOUND_MS = 500;

let db: Database;
let srv: RunningServer;
let dir: string;
const figures: string[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  dir = tempDir();
  db = await createLongTables(join(dir, 'data'), false);
  srv = await startServer({ db, port: 0, auth: { method: 'trust' } });
});

test.after(async () => {
  await srv.close();
  await db.close();
  console.log(`\n${figures.join('\n')}`);
});

test('psql: Ctrl-C typed in a terminal (tmux) cancels a running cross join: 57014, and psql goes on', async () => {
  // A tmux server of our own (-L), so that nothing of the user's sessions is touched.
  const sock = `paxd-cancel-${process.pid}`;
  const env = { ...process.env, PGSSLMODE: 'disable', TMUX: '' };
  const tmux = (...args: string[]) => run('tmux', ['-L', sock, ...args], { env });
  await tmux('new-session', '-d', '-s', 'psql', '-x', '200', '-y', '50', `psql -X -h 127.0.0.1 -p ${srv.port} -U paxd -d paxd`);
  try {
    const screen = async () => (await tmux('capture-pane', '-p', '-t', 'psql')).stdout;
    const waitFor = async (text: string, ms: number): Promise<number> => {
      const deadline = performance.now() + ms;
      for (;;) {
        if ((await screen()).includes(text)) return performance.now();
        if (performance.now() > deadline) throw new Error(`psql did not print ${JSON.stringify(text)} within ${ms} ms:\n${await screen()}`);
        await sleep(5);
      }
    };
    await waitFor('paxd=', 10_000);
    // tmux reads an argument that ends in ';' as the end of its command: '\\;' is the character.
    await tmux('send-keys', '-t', 'psql', `${LONG['cross join']}\\;`, 'Enter');
    await sleep(1000);
    assert.not.ok((await screen()).includes('row)'), 'the cross join is still running');
    const sent = performance.now();
    await tmux('send-keys', '-t', 'psql', 'C-c');
    const at = await waitFor('ERROR:  canceling statement due to user request', 5000);
    figures.push(`psql Ctrl-C (tmux): ERROR printed ${(at - sent).toFixed(1)} ms after the keystroke`);
    assert.ok(at - sent < STOP_BOUND_MS, `${(at - sent).toFixed(1)} ms`);
    await tmux('send-keys', '-t', 'psql', 'select 41 + 1 as answer\\;', 'Enter');
    await waitFor('42', 5000);
  } finally {
    await tmux('kill-server').catch(() => undefined);
  }
});

const JAVA = `
import java.sql.*;

public class Cancel {
  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/paxd?user=paxd&sslmode=disable";
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.setQueryTimeout(1);
      long started = System.nanoTime();
      try (ResultSet r = s.executeQuery(args[1])) {
        System.out.println("no error");
      } catch (SQLException e) {
        System.out.println("state=" + e.getSQLState() + " ms=" + (System.nanoTime() - started) / 1e6 + " message=" + e.getMessage());
      }
      s.setQueryTimeout(0);
      try (ResultSet r = s.executeQuery("select 41 + 1")) {
        r.next();
        System.out.println("after=" + r.getInt(1));
      }
    }
  }
}
`;

test('pgjdbc: setQueryTimeout(1) cancels a running cross join one second in: 57014, and the connection goes on', async () => {
  const src = join(dir, 'Cancel.java');
  writeFileSync(src, JAVA);
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn('java', ['-cp', JDBC_JAR, src, String(srv.port), LONG['cross join']!]);
    let text = '';
    p.stdout.on('data', (d: Buffer) => (text += d.toString()));
    p.stderr.on('data', (d: Buffer) => (text += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`java exited with ${code}:\n${text}`))));
  });
  const m = /state=(\w+) ms=([\d.]+) message=(.*)/.exec(out);
  assert.ok(m !== null, out);
  const late = Number(m[2]) - 1000;
  figures.push(`pgjdbc setQueryTimeout(1): ${m[1]} after ${Number(m[2]).toFixed(1)} ms (${late.toFixed(1)} ms past the timeout)`);
  assert.is(m[1], '57014');
  assert.match(m[3]!, 'canceling statement due to user request');
  assert.ok(late < STOP_BOUND_MS, `${late.toFixed(1)} ms past the timeout`);
  assert.match(out, 'after=42');
});

test.run();
