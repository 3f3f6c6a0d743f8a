/** `paxd compact TABLE`: rewrites files with deleted rows and merges small files, in a new snapshot. */
import type { Command } from 'commander';
import { dataOption, type Io } from '../options.js';
import { formatCount } from '../output.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(cmd).action(async (table: string, o) => {
    const { Database } = await import('../../table/database.js');
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
}
