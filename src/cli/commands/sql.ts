/** `paxd sql "SQL"`: embedded SQL, results printed as a table, CSV, JSON lines or Arrow IPC. */
import type { Command } from 'commander';
import { usage } from '../../types/index.js';
import { dataOption, sessionTimeZone, timeZoneOption, type Io } from '../options.js';
import { printTable } from '../output.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(
    timeZoneOption(cmd.option('--format <format>', 'table, csv, json (one object per line) or arrow (an Arrow IPC stream per result)', 'table'), 'timestamptz is read and printed in'),
  ).action(
    async (statement: string | undefined, o) => {
      if (!['table', 'csv', 'json', 'arrow'].includes(o.format)) throw usage(`unknown format "${o.format}": use table, csv, json or arrow`);
      const timeZone = sessionTimeZone(o.timezone as string | undefined);
      const options = timeZone !== undefined ? { timeZone } : undefined;
      const [{ Database }, { query, queryAll, textRows, commandTag }] = await Promise.all([import('../../table/database.js'), import('../../engine/index.js')]);
      const db = await Database.open(o.data);
      try {
        const sql = statement ?? (await readStdin());
        const results = statement !== undefined ? [await query(db, sql, undefined, options)] : await queryAll(db, sql, options);
        for (const r of results) {
          if (r.fields.length === 0) {
            // INSERT, DELETE, CREATE TABLE, …: their command tag, as psql prints it.
            if (o.format === 'table') out(`${commandTag(r)}\n`);
            continue;
          }
          if (o.format === 'arrow') {
            const { resultToArrowIpc } = await import('../../daemon/arrow-out.js');
            process.stdout.write(resultToArrowIpc(r));
            continue;
          }
          const header = r.fields.map((f) => f.name);
          const rows = textRows(r, timeZone);
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
    },
  );
}

function readStdin(): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
      .on('error', reject);
  });
}
