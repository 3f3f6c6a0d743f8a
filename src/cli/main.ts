/**
 * The paxd command line. Thin: parse flags, call the library, print. Every command takes
 * `--data URI` (or PAXD_DATA; ./paxd-data by default), has --help, and on failure prints one
 * line `paxd: ERROR:  CODE: message` to stderr and exits non-zero.
 */
import { Command, CommanderError } from 'commander';
import { Database, DEFAULT_DATA } from '../database.js';
import { PaxdError } from '../types/errors.js';
import { parseColumns } from '../types/parse-type.js';
import { readArrow } from '../insert/arrow-input.js';
import { openInput } from '../insert/input.js';
import { tableStats } from '../stats-report.js';
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
      .description('load files into a table as one commit ("-" reads standard input)')
      .option('--format <format>', 'arrow (csv, ndjson, parquet: not yet); from the extension when omitted')
      .option('--verbose', 'print the summary even when not on a terminal'),
  ).action(async (table: string, files: string[], o) => {
    const db = await Database.open(o.data);
    try {
      const t = await db.table(table);
      const started = Date.now();
      const p = progress('ingest');
      const sink = t.sink({ summary: { command: 'ingest' } });
      let rows = 0;
      try {
        for (const file of files) {
          const format = o.format ?? formatOf(file);
          if (format !== 'arrow') throw new PaxdError('unsupported', '0A000', `ingest of format ${format} is not supported yet (use --format arrow with an Arrow IPC file)`);
          const input = await openInput(file);
          for await (const batch of readArrow(input.stream, t.fields, input.name)) {
            await sink.write(batch);
            rows += batch.length;
            p.update(`${formatCount(rows)} rows`);
          }
        }
        const r = await sink.commit();
        p.done();
        const secs = (Date.now() - started) / 1000;
        if (process.stdout.isTTY || o.verbose)
          out(`ingested ${formatCount(r.rows)} rows into ${table} in ${secs.toFixed(2)} s (${formatCount(Math.round(r.rows / Math.max(secs, 1e-3)))} rows/s): snapshot ${r.snapshot.id}, ${r.files} file(s), ${r.groups} row group(s), ${formatBytes(r.bytes)}\n`);
      } catch (e) {
        p.done();
        await sink.abort();
        throw e;
      }
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

  return program;
}

function formatOf(file: string): string {
  const f = file.toLowerCase().replace(/\.(gz|zst)$/, '');
  if (f.endsWith('.arrow') || f.endsWith('.arrows') || f.endsWith('.ipc') || f.endsWith('.feather')) return 'arrow';
  if (f.endsWith('.csv') || f.endsWith('.tsv')) return 'csv';
  if (f.endsWith('.ndjson') || f.endsWith('.jsonl') || f.endsWith('.json')) return 'ndjson';
  if (f.endsWith('.parquet')) return 'parquet';
  if (file === '-') throw new PaxdError('usage', '22023', 'reading standard input needs --format');
  throw new PaxdError('usage', '22023', `cannot tell the format of ${file} from its extension: use --format`);
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
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
