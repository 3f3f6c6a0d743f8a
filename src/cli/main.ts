/**
 * The paxd command line: the command table and the dispatch. Every command lives in
 * ./commands/<name>.ts and is loaded only when it runs (or shows its help), and each loads the
 * layers it uses only inside its action, so `paxd --help` loads no layer at all and
 * `paxd sql` never loads the daemon, the wire server, S3 or Parquet.
 *
 * Every command takes `--data URI` (or PAXD_DATA; ./paxd-data by default), has --help, and on
 * failure prints one line `paxd: ERROR:  CODE: message` to stderr and exits 1 (2 for bad
 * usage, 70 for an internal error; `PAXD_DEBUG=1` adds its stack).
 */
import { Command, CommanderError } from 'commander';
import { PaxdError } from '../types/errors.js';
import type { Io } from './options.js';

/** A command's module: it adds its options and action to the command the table made. */
export interface CommandModule {
  define(cmd: Command, io: Io): void;
}

interface CommandEntry {
  readonly name: string;
  /** Its arguments, as commander declares them. */
  readonly args: string;
  readonly summary: string;
  readonly load: () => Promise<CommandModule>;
}

/**
 * What `paxd sql` runs, as its help lists it: the statement kinds, and what a SELECT may hold
 * (test/cli/help.test.ts runs an example of each through `paxd sql`).
 */
export const SQL_STATEMENTS = [
  'SELECT',
  'VALUES',
  'EXPLAIN [ANALYZE]',
  'INSERT',
  'UPDATE',
  'DELETE',
  'TRUNCATE',
  'CREATE/ALTER/DROP TABLE',
  'CREATE TABLE AS',
  'CREATE/DROP VIEW',
  'CREATE/ALTER/DROP ROLE',
  'GRANT',
  'REVOKE',
] as const;
export const SQL_SELECT_PARTS = ['joins', 'subqueries', 'WITH [RECURSIVE]', 'window functions', 'GROUP BY', 'UNION/INTERSECT/EXCEPT', 'ORDER BY … LIMIT'] as const;

/** The commands, in the order `paxd --help` lists them. */
const COMMANDS: readonly CommandEntry[] = [
  { name: 'create', args: '<table>', summary: 'create a table', load: () => import('./commands/create.js') },
  {
    name: 'ingest',
    args: '<table> <files...>',
    summary: 'load files into a table as one commit: all of it or none of it ("-" reads standard input)',
    load: () => import('./commands/ingest.js'),
  },
  {
    name: 'export',
    args: '<table>',
    summary: 'write the table as Parquet: one file per data file, one row group per row group, deleted rows left out',
    load: () => import('./commands/export.js'),
  },
  {
    name: 'sql',
    args: '[statement]',
    summary: `run SQL in PostgreSQL's dialect: ${SQL_STATEMENTS.join(', ')} (SELECT with ${SQL_SELECT_PARTS.join(', ')}); reads statements from standard input when none is given`,
    load: () => import('./commands/sql.js'),
  },
  {
    name: 'serve',
    args: '',
    summary:
      'run the daemon: PostgreSQL wire protocol, HTTP API (/health /ready /metrics /v1/sql /v1/tables/{t}/rows), watched inbox, background compaction and vacuum (docs/DAEMON.md); SIGTERM finishes running work, SIGINT cancels it',
    load: () => import('./commands/serve.js'),
  },
  {
    name: 'passwd',
    args: '<user>',
    summary: "print a SCRAM-SHA-256 verifier (PostgreSQL's format) for a password read from stdin, for the users of paxd serve (--read-only: a read-only user's users-file entry)",
    load: () => import('./commands/passwd.js'),
  },
  {
    name: 'roles',
    args: '',
    summary: 'list the roles and grants stored in the store (CREATE ROLE, GRANT through paxd sql, the wire or HTTP); never a password',
    load: () => import('./commands/roles.js'),
  },
  {
    name: 'mirror',
    args: '',
    summary:
      'declare every paxd table as a postgres_fdw foreign table in a PostgreSQL database (docs/MIRROR.md): the server, user mapping and foreign tables are created, altered or dropped to match; running it again changes nothing',
    load: () => import('./commands/mirror.js'),
  },
  { name: 'stats', args: '<table>', summary: 'per-column and per-group statistics', load: () => import('./commands/stats.js') },
  { name: 'check', args: '<table>', summary: 'verify every checksum of every file of the table', load: () => import('./commands/check.js') },
  { name: 'tables', args: '', summary: 'list tables with rows, bytes and layout', load: () => import('./commands/tables.js') },
  {
    name: 'vacuum',
    args: '<table>',
    summary: 'remove files and snapshots no retained snapshot needs, after a grace period',
    load: () => import('./commands/vacuum.js'),
  },
  {
    name: 'compact',
    args: '<table>',
    summary: 'rewrite files with deleted rows and merge small files into full row groups, in a new snapshot (readers undisturbed)',
    load: () => import('./commands/compact.js'),
  },
];

/** The command argv names: the first word that is not an option (`paxd help NAME` names NAME). */
function commandNamed(argv: readonly string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/**
 * The program for `argv`: every command of the table, the one argv names with its module
 * loaded, the others as names and summaries (enough for `paxd --help` and for commander's
 * "unknown command" suggestions).
 */
export async function buildProgram(argv: readonly string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<Command> {
  const program = new Command('paxd')
    .description('paxd: columnar tables with statistics, for teams that live in PostgreSQL')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride()
    // Every command has options; the ones not loaded have not declared theirs.
    .configureHelp({ subcommandTerm: (c) => (c.name() === 'help' ? 'help [command]' : `${c.name()} [options]${argsOf(c.name())}`) });
  const wanted = commandNamed(argv);
  for (const entry of COMMANDS) {
    const cmd = program.command(`${entry.name}${entry.args === '' ? '' : ` ${entry.args}`}`).description(entry.summary);
    if (entry.name === wanted) (await entry.load()).define(cmd, { out });
  }
  return program;
}

function argsOf(name: string): string {
  const args = COMMANDS.find((e) => e.name === name)?.args ?? '';
  return args === '' ? '' : ` ${args}`;
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  // The AWS SDK warns on every start under Node 20 (its 2027 releases need Node 22): noise for
  // a command line tool that supports Node 20.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // `paxd stats t | head`: a closed pipe ends the output quietly, as for any Unix tool.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    process.stderr.write(errorLine(e));
    return e instanceof PaxdError ? 1 : 70;
  }
}

/**
 * The one line an error prints: `paxd: ERROR:  22023: message`, PostgreSQL's hint after it
 * (`HINT:  Valid units for this parameter are …`); an error that is not a PaxdError is a bug:
 * `paxd: internal error: message`, with its stack only under PAXD_DEBUG=1.
 */
export function errorLine(e: unknown): string {
  if (e instanceof PaxdError) return `paxd: ERROR:  ${e.code}: ${oneLine(e.message)}${e.hint === undefined ? '' : `  HINT:  ${oneLine(e.hint)}`}\n`;
  if (process.env.PAXD_DEBUG === '1') return `paxd: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`;
  return `paxd: internal error: ${oneLine(e instanceof Error ? e.message : String(e))} (PAXD_DEBUG=1 shows where)\n`;
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ');
}
