/** `paxd tables [--json]`: the store's tables and views with rows, bytes, layout, snapshot and kind (table or view). */
import type { Command } from 'commander';
import { dataOption, type Io } from '../options.js';
import { formatBytes, formatCount, printTable } from '../output.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(cmd.option('--json', 'JSON output')).action(async (o) => {
    const { Database } = await import('../../table/database.js');
    const db = await Database.open(o.data);
    try {
      const list = await db.tables();
      if (o.json) out(JSON.stringify(list) + '\n');
      else if (list.length === 0) out(`no tables in ${db.store.uri}\n`);
      else
        printTable(
          out,
          ['table', 'rows', 'bytes', 'layout', 'snapshot', 'files', 'groups', 'kind'],
          list.map((t) => [t.name, formatCount(t.rows), formatBytes(t.bytes), t.kind === 'view' ? '-' : t.layout, String(t.snapshot), String(t.files), String(t.groups), t.kind]),
        );
    } finally {
      await db.close();
    }
  });
}
