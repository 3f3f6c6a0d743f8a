/** `paxd export TABLE --to DIR`: the table as Parquet files. */
import type { Command } from 'commander';
import { PaxdError, SQLSTATE } from '../../types/index.js';
// The export layer holds the flags' defaults; its Parquet writer loads on first use.
import { exportTable, parseWhere, EXPORT_CODECS, DEFAULT_MIN_GROUP_ROWS, type ExportCodec } from '../../export/index.js';
import { dataOption, nonNegativeInt, type Io } from '../options.js';
import { formatBytes, formatCount, progress } from '../output.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(
    cmd
      .requiredOption('--to <dir>', 'output folder (created if missing); files appear there complete or not at all')
      .option('--codec <codec>', `Parquet compression: ${EXPORT_CODECS.join(', ')}`, 'zstd')
      .option('--where <condition>', `only rows matching "col op value [and …]" (op: = <> != < <= > >=, or "col is [not] null"; quote text values: name = 'it''s')`)
      .option('--min-group-rows <n>', 'merge row groups with fewer rows into the following ones (0: never)', nonNegativeInt('--min-group-rows'), DEFAULT_MIN_GROUP_ROWS)
      .option('--verbose', 'print the summary even when not on a terminal'),
  ).action(async (table: string, o) => {
    if (!(EXPORT_CODECS as readonly string[]).includes(o.codec)) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `unknown codec "${o.codec}": use ${EXPORT_CODECS.join(', ')}`);
    const { Database } = await import('../../table/database.js');
    const db = await Database.open(o.data);
    const p = progress('export');
    try {
      const { storedTable } = await import('../../table/view-errors.js');
      const t = storedTable(await db.table(table), 'paxd export');
      const r = await exportTable(t, {
        to: o.to,
        codec: o.codec as ExportCodec,
        minGroupRows: o.minGroupRows,
        ...(o.where !== undefined ? { where: parseWhere(o.where) } : {}),
        onProgress: (x) => p.update(() => `file ${Math.min(x.filesDone + 1, x.filesTotal)}/${x.filesTotal}, ${formatCount(x.rows)} of ${formatCount(x.rowsTotal)} rows, ${formatBytes(x.bytes)}`),
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
}
