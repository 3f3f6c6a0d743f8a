/** `paxd ingest TABLE FILE…`: load files as one commit (with --create, the table too). */
import type { Command } from 'commander';
import { PaxdError, SQLSTATE, usage } from '../../types/index.js';
import { dataOption, nonNegativeInt, sessionTimeZone, timeZoneOption, type Io } from '../options.js';
import { formatBytes, formatCount, progress } from '../output.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(
    timeZoneOption(cmd, 'timestamptz fields without an offset (CSV, text, NDJSON) are read in')
      .option('--format <format>', "csv, text (PostgreSQL COPY's text format), ndjson, parquet or arrow; from the extension (before .gz/.zst) when omitted")
      .option('--create', 'create the table: column names and types inferred from a sample of the first input (never NOT NULL), printed before loading; the table and its rows are one commit')
      .option('--header', 'CSV: the first line names the columns (matched by name)')
      .option('--delimiter <char>', 'CSV and text: field delimiter (default: "," for CSV, a tab for text)')
      .option('--quote <char>', 'CSV: quote character (default: ")')
      .option('--escape <char>', 'CSV: escape character (default: the quote)')
      .option('--null <string>', 'CSV: the string that means NULL (default: an unquoted empty field)')
      .option('--on-error <mode>', 'abort (the first bad row fails the load) or skip (bad rows go to --rejects)', 'abort')
      .option('--rejects <file>', 'with --on-error skip: write each rejected row, its line and the reason here (NDJSON)')
      .option('--max-rejects <n>', 'with --on-error skip: fail the load past N rejected rows', nonNegativeInt('--max-rejects'))
      .option('--verbose', 'print the summary even when not on a terminal'),
  ).action(async (table: string, files: string[], o) => {
    if (o.onError !== 'abort' && o.onError !== 'skip') throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `--on-error must be abort or skip, got "${o.onError}"`);
    const timeZone = sessionTimeZone(o.timezone as string | undefined);
    const [{ Database }, { ingestFiles }, { FORMATS, formatOf }] = await Promise.all([
      import('../../table/database.js'),
      import('../../table/ingest.js'),
      import('../../insert/formats.js'),
    ]);
    const parseFormat = (s: string): (typeof FORMATS)[number] => {
      if (!(FORMATS as readonly string[]).includes(s)) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `unknown format "${s}": use ${FORMATS.join(', ')}`);
      return s as (typeof FORMATS)[number];
    };
    const db = await Database.open(o.data);
    try {
      const csv = {
        header: o.header === true,
        ...(o.delimiter !== undefined ? { delimiter: o.delimiter } : {}),
        ...(o.quote !== undefined ? { quote: o.quote } : {}),
        ...(o.escape !== undefined ? { escape: o.escape } : {}),
        ...(o.null !== undefined ? { null: o.null } : {}),
      };
      let t;
      if (o.create) {
        const first = files[0]!;
        const format = o.format !== undefined ? parseFormat(o.format) : formatOf(first);
        if (format === null) throw usage(first === '-' ? 'reading standard input needs --format' : `cannot tell the format of ${first} from its extension: use --format`);
        const [{ inferSchema, formatColumns }, { openInput }] = await Promise.all([import('../../insert/infer.js'), import('../../insert/input.js')]);
        const { columns } = await inferSchema(format, await openInput(first), { csv });
        process.stderr.write(`creating table ${table} (${formatColumns(columns)})\n`);
        t = db.prepareTable(table, columns);
      } else t = await db.table(table);
      const p = progress('ingest');
      try {
        const r = await ingestFiles(t, files, {
          ...(o.format !== undefined ? { format: parseFormat(o.format) } : {}),
          csv,
          ...(timeZone !== undefined ? { timeZone } : {}),
          onError: o.onError,
          ...(o.rejects !== undefined ? { rejects: o.rejects } : {}),
          ...(o.maxRejects !== undefined ? { maxRejects: o.maxRejects } : {}),
          onProgress: (x) =>
            p.update(() => {
              const rate = x.rows / Math.max(x.seconds, 1e-3);
              const left = x.totalBytes !== null && x.bytes > 0 ? ` (${Math.round((100 * x.bytes) / x.totalBytes)}%, ${Math.max(0, Math.round((x.seconds * (x.totalBytes - x.bytes)) / x.bytes))} s left)` : '';
              return `${formatCount(x.rows)} rows, ${formatBytes(x.bytes)}${left}, ${formatCount(Math.round(rate))} rows/s`;
            }),
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
}
