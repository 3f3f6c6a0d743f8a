/**
 * The paxd command line. Thin: parse flags, call the library, print. Every command takes
 * `--data URI` (or PAXD_DATA; ./paxd-data by default), has --help, and on failure prints one
 * line `paxd: ERROR:  CODE: message` to stderr and exits non-zero.
 */
import { resultToArrowIpc } from '../daemon/arrow-out.js';
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { Database, DEFAULT_DATA, type Table } from '../database.js';
import { PaxdError, usage } from '../types/errors.js';
import { parseColumns } from '../types/parse-type.js';
import { ingestFiles } from '../insert/ingest.js';
import { startServer, DEFAULT_LISTEN, serveAuthConfig, scramVerifier, md5Verifier, type TlsConfig } from '../pgwire/index.js';
import { serve, loadConfig, printableConfig, type RawConfig } from '../daemon/index.js';
import { query, queryAll, textRows, commandTag, type QueryResult } from '../engine/index.js';
import { exportTable, parseWhere, EXPORT_CODECS, DEFAULT_MIN_GROUP_ROWS, type ExportCodec } from '../export/index.js';
import { FORMATS, formatOf, type Format } from '../insert/formats.js';
import { inferSchema, formatColumns } from '../insert/infer.js';
import { openInput } from '../insert/input.js';
import { tableStats } from '../stats-report.js';
import { runMirror, planFromNothing, mirrorOptions, maskUrl, MIRROR_DEFAULTS } from '../mirror/index.js';
import { progress, formatBytes, formatCount, printTable } from './output.js';

function dataOption(cmd: Command): Command {
  return cmd.option('--data <uri>', 'store root: a folder or s3://bucket/prefix (env PAXD_DATA)', process.env.PAXD_DATA ?? DEFAULT_DATA);
}

function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(s.trim());
  if (!m) throw new PaxdError('usage', '22023', `invalid duration "${s}": use e.g. 0, 30s, 10m, 1h`);
  const mult = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? 's') as 'ms'];
  return Number(m[1]) * mult;
}

function positiveInt(name: string) {
  return (s: string): number => {
    const n = Number(s);
    if (!Number.isInteger(n) || n <= 0) throw new PaxdError('usage', '22023', `${name} must be a positive integer, got "${s}"`);
    return n;
  };
}

export function buildProgram(out: (s: string) => void = (s) => process.stdout.write(s)): Command {
  const program = new Command('paxd')
    .description('paxd: columnar tables with statistics, for teams that live in PostgreSQL')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();

  dataOption(
    program
      .command('create <table>')
      .description('create a table')
      .requiredOption('--columns <spec>', 'columns, e.g. "id int8 not null, name text, price numeric(12,2)"')
      .option('--layout <layout>', 'pax or ao_column', 'pax')
      .option('--codec <codec>', 'lz4, zstd or none', 'lz4')
      .option('--row-group-rows <n>', 'rows per row group', positiveInt('--row-group-rows'))
      .option('--row-group-bytes <n>', 'byte budget of a row group across all columns', positiveInt('--row-group-bytes'))
      .option('--zone-rows <n>', 'rows per zone (multiple of 1024)', positiveInt('--zone-rows')),
  ).action(async (table: string, o) => {
    const db = await Database.open(o.data);
    try {
      const t = await db.createTable(table, parseColumns(o.columns), {
        layout: o.layout,
        codec: o.codec,
        ...(o.rowGroupRows ? { rowGroupRows: o.rowGroupRows } : {}),
        ...(o.rowGroupBytes ? { rowGroupBytes: o.rowGroupBytes } : {}),
        ...(o.zoneRows ? { zoneRows: o.zoneRows } : {}),
      });
      out(`created table ${t.name} (${t.fields.length} columns, layout ${t.snapshot.layout}, codec ${t.snapshot.options.codec})\n`);
    } finally {
      await db.close();
    }
  });

  dataOption(
    program
      .command('ingest <table> <files...>')
      .description('load files into a table as one commit: all of it or none of it ("-" reads standard input)')
      .option('--format <format>', 'csv, ndjson, parquet or arrow; from the extension (before .gz/.zst) when omitted')
      .option('--create', 'create the table: column names and types inferred from a sample of the first input (never NOT NULL), printed before loading; the table and its rows are one commit')
      .option('--header', 'CSV: the first line names the columns (matched by name)')
      .option('--delimiter <char>', 'CSV: field delimiter', ',')
      .option('--quote <char>', 'CSV: quote character', '"')
      .option('--escape <char>', 'CSV: escape character (default: the quote)')
      .option('--null <string>', 'CSV: the string that means NULL (default: an unquoted empty field)')
      .option('--on-error <mode>', 'abort (the first bad row fails the load) or skip (bad rows go to --rejects)', 'abort')
      .option('--rejects <file>', 'with --on-error skip: write each rejected row, its line and the reason here (NDJSON)')
      .option('--max-rejects <n>', 'with --on-error skip: fail the load past N rejected rows', nonNegativeInt('--max-rejects'))
      .option('--verbose', 'print the summary even when not on a terminal'),
  ).action(async (table: string, files: string[], o) => {
    if (o.onError !== 'abort' && o.onError !== 'skip') throw new PaxdError('usage', '22023', `--on-error must be abort or skip, got "${o.onError}"`);
    const db = await Database.open(o.data);
    try {
      const csv = {
        header: o.header === true,
        delimiter: o.delimiter,
        quote: o.quote,
        ...(o.escape !== undefined ? { escape: o.escape } : {}),
        ...(o.null !== undefined ? { null: o.null } : {}),
      };
      let t: Table;
      if (o.create) {
        const first = files[0]!;
        const format = o.format !== undefined ? parseFormat(o.format) : formatOf(first);
        if (format === null) throw usage(first === '-' ? 'reading standard input needs --format' : `cannot tell the format of ${first} from its extension: use --format`);
        const { columns } = await inferSchema(format, await openInput(first), { csv });
        process.stderr.write(`creating table ${table} (${formatColumns(columns)})\n`);
        t = db.prepareTable(table, columns);
      } else t = await db.table(table);
      const p = progress('ingest');
      try {
        const r = await ingestFiles(t, files, {
          ...(o.format !== undefined ? { format: parseFormat(o.format) } : {}),
          csv,
          onError: o.onError,
          ...(o.rejects !== undefined ? { rejects: o.rejects } : {}),
          ...(o.maxRejects !== undefined ? { maxRejects: o.maxRejects } : {}),
          onProgress: (x) => {
            const rate = x.rows / Math.max(x.seconds, 1e-3);
            const left = x.totalBytes !== null && x.bytes > 0 ? ` (${Math.round((100 * x.bytes) / x.totalBytes)}%, ${Math.max(0, Math.round((x.seconds * (x.totalBytes - x.bytes)) / x.bytes))} s left)` : '';
            p.update(`${formatCount(x.rows)} rows, ${formatBytes(x.bytes)}${left}, ${formatCount(Math.round(rate))} rows/s`);
          },
        });
        p.done();
        if (process.stdout.isTTY || o.verbose)
          out(
            `ingested ${formatCount(r.rowsLoaded)} rows into ${table} in ${r.seconds.toFixed(2)} s (${formatCount(Math.round(r.rowsLoaded / Math.max(r.seconds, 1e-3)))} rows/s): ` +
              `${formatCount(r.rowsRead)} read, ${formatCount(r.rowsLoaded)} loaded, ${formatCount(r.rowsRejected)} rejected; ` +
              `snapshot ${r.commit.snapshot.id}, ${r.commit.files} file(s), ${r.commit.groups} row group(s), ${formatBytes(r.commit.bytes)}\n`,
          );
        else if (r.rowsRejected > 0) process.stderr.write(`paxd: ${formatCount(r.rowsRejected)} of ${formatCount(r.rowsRead)} rows rejected${o.rejects ? ` (see ${o.rejects})` : ''}\n`);
      } finally {
        p.done();
      }
    } finally {
      await db.close();
    }
  });

  dataOption(
    program
      .command('export <table>')
      .description('write the table as Parquet: one file per data file, one row group per row group, deleted rows left out')
      .requiredOption('--to <dir>', 'output folder (created if missing); files appear there complete or not at all')
      .option('--codec <codec>', `Parquet compression: ${EXPORT_CODECS.join(', ')}`, 'zstd')
      .option('--where <condition>', `only rows matching "col op value [and …]" (op: = <> != < <= > >=, or "col is [not] null"; quote text values: name = 'it''s')`)
      .option('--min-group-rows <n>', 'merge row groups with fewer rows into the following ones (0: never)', nonNegativeInt('--min-group-rows'), DEFAULT_MIN_GROUP_ROWS)
      .option('--verbose', 'print the summary even when not on a terminal'),
  ).action(async (table: string, o) => {
    if (!(EXPORT_CODECS as readonly string[]).includes(o.codec)) throw new PaxdError('usage', '22023', `unknown codec "${o.codec}": use ${EXPORT_CODECS.join(', ')}`);
    const db = await Database.open(o.data);
    const p = progress('export');
    try {
      const t = await db.table(table);
      const r = await exportTable(t, {
        to: o.to,
        codec: o.codec as ExportCodec,
        minGroupRows: o.minGroupRows,
        ...(o.where !== undefined ? { where: parseWhere(o.where) } : {}),
        onProgress: (x) => p.update(`file ${Math.min(x.filesDone + 1, x.filesTotal)}/${x.filesTotal}, ${formatCount(x.rows)} of ${formatCount(x.rowsTotal)} rows, ${formatBytes(x.bytes)}`),
      });
      p.done();
      if (process.stdout.isTTY || o.verbose)
        out(
          `exported ${formatCount(r.rows)} rows of ${table} to ${o.to} in ${r.seconds.toFixed(2)} s (${r.mbPerSecond.toFixed(0)} MB/s): ` +
            `${r.files.length} file(s), ${r.rowGroups} row group(s), ${formatBytes(r.bytes)} of Parquet (${o.codec})\n`,
        );
    } finally {
      p.done();
      await db.close();
    }
  });

  dataOption(
    program
      .command('sql [statement]')
      .description('run SQL (PostgreSQL dialect: SELECT with joins, subqueries, UNION ALL, GROUP BY, ORDER BY, LIMIT; CREATE/ALTER/DROP TABLE, INSERT, DELETE, EXPLAIN [ANALYZE]); reads statements from standard input when none is given')
      .option('--format <format>', 'table, csv, json (one object per line) or arrow (an Arrow IPC stream per result)', 'table'),
  ).action(async (statement: string | undefined, o) => {
    if (!['table', 'csv', 'json', 'arrow'].includes(o.format)) throw usage(`unknown format "${o.format}": use table, csv, json or arrow`);
    const db = await Database.open(o.data);
    try {
      const sql =
        statement ??
        (await new Promise<string>((resolve, reject) => {
          const chunks: Buffer[] = [];
          process.stdin
            .on('data', (c: Buffer) => chunks.push(c))
            .on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
            .on('error', reject);
        }));
      const results: QueryResult[] = statement !== undefined ? [await query(db, sql)] : await queryAll(db, sql);
      for (const r of results) {
        if (r.fields.length === 0) {
          // INSERT, DELETE, CREATE TABLE, …: their command tag, as psql prints it.
          if (o.format === 'table') out(`${commandTag(r)}\n`);
          continue;
        }
        if (o.format === 'arrow') {
          process.stdout.write(resultToArrowIpc(r));
          continue;
        }
        const header = r.fields.map((f) => f.name);
        const rows = textRows(r);
        if (o.format === 'json') {
          for (const row of rows) out(JSON.stringify(Object.fromEntries(header.map((h, i) => [h, row[i]]))) + '\n');
        } else if (o.format === 'csv') {
          // COPY's CSV: NULL is an empty field, an empty string is "".
          const cell = (v: string | null) => (v === null ? '' : /[",\n\r]|^$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
          out(header.map(cell).join(',') + '\n');
          for (const row of rows) out(row.map(cell).join(',') + '\n');
        } else {
          printTable(out, header, rows.map((row) => row.map((v) => v ?? '')));
          out(`(${rows.length} row${rows.length === 1 ? '' : 's'})\n`);
        }
      }
    } finally {
      await db.close();
    }
  });

  dataOption(
    program
      .command('serve')
      .description('run the daemon: PostgreSQL wire protocol, HTTP API (/health /ready /metrics /v1/sql /v1/tables/{t}/rows), watched inbox, background compaction and vacuum (docs/DAEMON.md); SIGTERM finishes running work, SIGINT cancels it')
      .option('--listen <address>', 'wire protocol host:port, [ipv6]:port or :port (0 picks a free port), or off', DEFAULT_LISTEN)
      .option('--max-message-size <bytes>', 'largest message a client may send', positiveInt('--max-message-size'))
      .option('--max-connections <n>', 'clients served at once (one more gets 53300)', positiveInt('--max-connections'))
      .option('--users <file>', 'wire protocol users: JSON {"users": {"alice": "SCRAM-SHA-256$…"}, "method"?: …} (verifiers from paxd passwd)')
      .option('--auth <method>', 'wire protocol authentication: scram-sha-256 (default with users), md5, or trust (loopback only; default without users)')
      .option('--tls-key <file>', 'PEM private key: clients may use TLS (sslmode=require)')
      .option('--tls-cert <file>', 'PEM certificate chain for --tls-key')
      .option('--config <file>', 'configuration file, JSON or TOML (env PAXD_CONFIG); environment PAXD_<KEY> overrides it, flags override both')
      .option('--print-config', 'print the effective configuration (secrets masked) and exit')
      .option('--http <address>', 'HTTP API host:port, or off (default 127.0.0.1:7480)')
      .option('--inbox <dir>', 'watch DIR/<table>/ for CSV, NDJSON, Parquet and Arrow files (.gz/.zst too) and load each exactly once')
      .option('--inbox-create', 'create a missing table from its first inbox file (schema inferred)')
      .option('--on-error <mode>', 'inbox and HTTP loads: abort (a bad row fails the file) or skip (bad rows go to its rejects)')
      .option('--vacuum-grace <duration>', 'background vacuum removes unreferenced files older than this (e.g. 10m, 1h)')
      .option('--work-mem <size>', 'memory budget of one statement or load (e.g. 64MB)')
      .option('--log-level <level>', 'trace, debug, info, warn, error, fatal or silent')
      .option('--mirror <url>', 'PostgreSQL (postgres://…) to keep every table mirrored into as postgres_fdw foreign tables (docs/MIRROR.md; mirror_* config keys)'),
  ).action(async (o, cmd: Command) => {
    const given = (k: string) => cmd.getOptionValueSource(k) === 'cli';
    const flags: RawConfig = {};
    const map: [string, keyof RawConfig][] = [
      ['data', 'store'], ['listen', 'listen'], ['http', 'http'], ['inbox', 'inbox'], ['inboxCreate', 'inbox_create'], ['onError', 'on_error'],
      ['vacuumGrace', 'vacuum_grace_ms'], ['workMem', 'work_mem'], ['maxConnections', 'max_connections'], ['logLevel', 'log_level'], ['mirror', 'mirror'],
    ];
    for (const [opt, key] of map) if (given(opt)) flags[key] = o[opt];
    const config = loadConfig({ ...(o.config !== undefined ? { file: o.config } : {}), flags });
    if (o.printConfig) {
      out(printableConfig(config));
      return;
    }
    await serve(config, {
      out,
      startWire: (db, host, port, c) =>
        startServer({
          db,
          host,
          port,
          maxConnections: c.max_connections,
          ...(o.maxMessageSize !== undefined ? { maxMessageSize: o.maxMessageSize } : {}),
          auth: serveAuthConfig(c.users, o.users, o.auth),
          workMem: c.work_mem,
          ...(o.tlsKey !== undefined || o.tlsCert !== undefined ? { tls: tlsFiles(o.tlsKey, o.tlsCert) } : {}),
        }),
    });
  });

  program
    .command('passwd <user>')
    .description("print a SCRAM-SHA-256 verifier (PostgreSQL's format) for a password read from stdin, for the users of paxd serve")
    .option('--password-stdin', 'read the password from stdin (the default)')
    .option('--md5', 'print an md5 verifier instead (only for serve --auth md5)')
    .action(async (user: string, o) => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
      if (password === '') throw usage('paxd passwd: empty password on stdin');
      out((o.md5 ? md5Verifier(user, password) : scramVerifier(password)) + '\n');
    });

  dataOption(
    program
      .command('mirror')
      .description(
        'declare every paxd table as a postgres_fdw foreign table in a PostgreSQL database (docs/MIRROR.md): the extension if missing, a foreign server ' +
          'pointing at paxd serve, a user mapping, and one foreign table per paxd table (PostgreSQL types, NOT NULL, COLLATE "C" on strings); ' +
          'changed tables are altered, dropped ones dropped; running it again changes nothing',
      )
      .option('--pg <url>', 'the PostgreSQL to declare them in, e.g. postgres://postgres@localhost:5432/app (env PAXD_MIRROR_PG)')
      .option('--schema <name>', 'schema of the foreign tables in PostgreSQL (created if missing)', MIRROR_DEFAULTS.schema)
      .option('--server <name>', 'name of the foreign server', MIRROR_DEFAULTS.server)
      .option('--host <host>', 'host of paxd serve as PostgreSQL reaches it', MIRROR_DEFAULTS.host)
      .option('--port <port>', 'port of paxd serve as PostgreSQL reaches it', positiveInt('--port'), MIRROR_DEFAULTS.port)
      .option('--dbname <name>', 'dbname postgres_fdw sends to paxd', MIRROR_DEFAULTS.dbname)
      .option('--user <name>', 'paxd user of the user mapping', MIRROR_DEFAULTS.user)
      .option('--password <pw>', 'password of the user mapping (env PAXD_MIRROR_PASSWORD; postgres_fdw requires one for non-superusers); never printed')
      .option('--for <role>', 'local role of the user mapping: CURRENT_USER, PUBLIC or a role name', MIRROR_DEFAULTS.forRole)
      .option('--fetch-size <n>', 'rows per FETCH', positiveInt('--fetch-size'), MIRROR_DEFAULTS.fetchSize)
      .option('--no-use-remote-estimate', 'do not ask paxd for estimates while planning (joins and aggregates are then pushed down less often)')
      .option('--dry-run', 'print the SQL it would run (against the current state of --pg if given, else from nothing) and change nothing'),
  ).action(async (o) => {
    const url: string | undefined = o.pg ?? process.env.PAXD_MIRROR_PG;
    if (url === undefined && !o.dryRun) throw usage('paxd mirror needs --pg postgres://… (or PAXD_MIRROR_PG)');
    const password: string | undefined = o.password ?? process.env.PAXD_MIRROR_PASSWORD;
    const options = mirrorOptions({
      pg: url ?? '',
      schema: o.schema,
      server: o.server,
      host: o.host,
      port: o.port,
      dbname: o.dbname,
      user: o.user,
      ...(password !== undefined ? { password } : {}),
      forRole: o.for,
      fetchSize: o.fetchSize,
      useRemoteEstimate: o.useRemoteEstimate !== false,
    });
    const db = await Database.open(o.data);
    try {
      const r = url === undefined ? await planFromNothing(db, options) : await runMirror(db, options, { dryRun: o.dryRun === true });
      if (o.dryRun) {
        for (const s of r.steps) out(`${s.display};\n`);
        if (r.steps.length === 0) out(`-- nothing to do: PostgreSQL already mirrors every table\n`);
        return;
      }
      const where = `server ${options.server}, schema ${options.schema} in ${maskUrl(options.pg)}`;
      out(
        `mirrored ${r.created.length + r.altered.length + r.unchanged.length} table(s) to ${where}: ` +
          `${r.created.length} created, ${r.altered.length} altered, ${r.dropped.length} dropped, ${r.unchanged.length} unchanged\n`,
      );
      if (password === undefined && r.steps.some((s) => s.kind === 'mapping'))
        process.stderr.write('paxd: note: the user mapping has no password; postgres_fdw lets only superusers use it (set --password or PAXD_MIRROR_PASSWORD)\n');
    } finally {
      await db.close();
    }
  });

  dataOption(program.command('stats <table>').description('per-column and per-group statistics').option('--json', 'one JSON object')).action(
    async (table: string, o) => {
      const db = await Database.open(o.data);
      try {
        const t = await db.table(table);
        const s = tableStats(t);
        if (o.json) {
          out(JSON.stringify(s) + '\n');
          return;
        }
        out(`table ${s.table}: snapshot ${s.snapshot}, ${formatCount(s.rows)} rows (${formatCount(s.deleted_rows)} deleted), ${formatBytes(s.bytes)}, ${s.groups.length} row groups\n\n`);
        printTable(
          out,
          ['column', 'type', 'nulls', 'min', 'max', 'sum'],
          Object.entries(s.columns).map(([name, c]) => [name, c.type, String(c.nulls), c.min ?? '', c.max ?? '', c.sum ?? '']),
        );
        out('\n');
        printTable(
          out,
          ['group', 'file', 'rows', 'live', ...Object.keys(s.columns).map((n) => `${n} min..max (nulls)`)],
          s.groups.map((g, i) => [
            String(i),
            g.file,
            String(g.rows),
            String(g.live),
            ...Object.keys(s.columns).map((n) => {
              const c = g.columns[n];
              return c === undefined ? '' : `${c.min ?? ''}..${c.max ?? ''} (${c.nulls})`;
            }),
          ]),
        );
      } finally {
        await db.close();
      }
    },
  );

  dataOption(program.command('check <table>').description('verify every checksum of every file of the table')).action(async (table: string, o) => {
    const db = await Database.open(o.data);
    try {
      const t = await db.table(table);
      const r = await t.check();
      if (r.problems.length > 0) {
        for (const p of r.problems) process.stderr.write(`paxd: ERROR:  ${p.code}: ${p.message}\n`);
        throw new PaxdError('corruption', 'XX001', `table ${table}: ${r.problems.length} damaged file(s) of ${r.files}`);
      }
      out(`table ${table} ok: snapshot ${r.snapshot}, ${r.files} files, ${r.groups} row groups, ${r.zones} zones, ${formatBytes(r.bytes)} verified\n`);
    } finally {
      await db.close();
    }
  });

  dataOption(program.command('tables').description('list tables with rows, bytes and layout').option('--json', 'JSON output')).action(async (o) => {
    const db = await Database.open(o.data);
    try {
      const list = await db.tables();
      if (o.json) out(JSON.stringify(list) + '\n');
      else if (list.length === 0) out(`no tables in ${db.store.uri}\n`);
      else
        printTable(
          out,
          ['table', 'rows', 'bytes', 'layout', 'snapshot', 'files', 'groups'],
          list.map((t) => [t.name, formatCount(t.rows), formatBytes(t.bytes), t.layout, String(t.snapshot), String(t.files), String(t.groups)]),
        );
    } finally {
      await db.close();
    }
  });

  dataOption(
    program
      .command('vacuum <table>')
      .description('remove files and snapshots no retained snapshot needs, after a grace period')
      .option('--grace <duration>', 'only remove what is older than this (e.g. 0, 30s, 10m, 1h)', '1h'),
  ).action(async (table: string, o) => {
    const db = await Database.open(o.data);
    try {
      const r = await db.vacuum(table, { graceMs: parseDuration(o.grace) });
      out(`vacuumed ${table}: ${JSON.stringify(r)}\n`);
    } finally {
      await db.close();
    }
  });

  dataOption(
    program
      .command('compact <table>')
      .description('rewrite files with deleted rows and merge small files into full row groups, in a new snapshot (readers undisturbed)'),
  ).action(async (table: string, o) => {
    const db = await Database.open(o.data);
    try {
      const t = await db.table(table);
      const r = await t.compact();
      out(
        `compacted ${table}: snapshot ${r.snapshot.id}, ${r.filesRewritten} file(s) rewritten into ${r.filesWritten}, ${formatCount(r.rowsWritten)} rows written, ${formatCount(r.rowsDropped)} deleted rows dropped\n`,
      );
    } finally {
      await db.close();
    }
  });

  return program;
}

function parseFormat(s: string): Format {
  if (!(FORMATS as readonly string[]).includes(s)) throw new PaxdError('usage', '22023', `unknown format "${s}": use ${FORMATS.join(', ')}`);
  return s as Format;
}

function nonNegativeInt(name: string) {
  return (s: string): number => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 0) throw new PaxdError('usage', '22023', `${name} must be a non-negative integer, got "${s}"`);
    return n;
  };
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
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof PaxdError) {
      process.stderr.write(`paxd: ERROR:  ${e.code}: ${e.message}\n`);
      return 1;
    }
    process.stderr.write(`paxd: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return 70;
  }
}

/** --tls-key and --tls-cert: both, read now so a bad path fails at start. */
function tlsFiles(key: string | undefined, cert: string | undefined): TlsConfig {
  if (key === undefined || cert === undefined) throw usage('--tls-key and --tls-cert go together');
  return { key: readFileSync(key), cert: readFileSync(cert) };
}
