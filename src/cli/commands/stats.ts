/** `paxd stats TABLE [--json]`: per-column, per-file and per-group statistics, from the snapshot alone. */
import type { Command } from 'commander';
import { dataOption, type Io } from '../options.js';
import { formatBytes, formatCount, printTable } from '../output.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(cmd.option('--json', 'one JSON object')).action(async (table: string, o) => {
    const [{ Database }, { tableStats }] = await Promise.all([import('../../table/database.js'), import('../../table/stats-report.js')]);
    const db = await Database.open(o.data);
    try {
      const { storedTable } = await import('../../table/view-errors.js');
      const t = storedTable(await db.table(table), 'paxd stats');
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
  });
}
