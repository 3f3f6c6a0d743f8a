/** `paxd create TABLE --columns "…"`: a new, empty table. */
import type { Command } from 'commander';
import { dataOption, positiveInt, type Io } from '../options.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(
    cmd
      .requiredOption('--columns <spec>', 'columns, e.g. "id int8 not null, name text, price numeric(12,2)"')
      .option('--layout <layout>', 'pax or ao_column', 'pax')
      .option('--codec <codec>', 'lz4, zstd or none', 'lz4')
      .option('--row-group-rows <n>', 'rows per row group', positiveInt('--row-group-rows'))
      .option('--row-group-bytes <n>', 'byte budget of a row group across all columns', positiveInt('--row-group-bytes'))
      .option('--zone-rows <n>', 'rows per zone (multiple of 1024)', positiveInt('--zone-rows')),
  ).action(async (table: string, o) => {
    const [{ Database }, { parseColumns }] = await Promise.all([import('../../table/database.js'), import('../../types/parse-type.js')]);
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
}
