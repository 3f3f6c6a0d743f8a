/** `paxd check TABLE`: reads every byte of every data file and verifies every checksum. */
import type { Command } from 'commander';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { dataOption, type Io } from '../options.js';
import { formatBytes } from '../output.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(cmd).action(async (table: string, o) => {
    const { Database } = await import('../../table/database.js');
    const db = await Database.open(o.data);
    try {
      const { storedTable } = await import('../../table/view-errors.js');
      const t = storedTable(await db.table(table), 'paxd check');
      const r = await t.check();
      if (r.problems.length > 0) {
        for (const p of r.problems) process.stderr.write(`paxd: ERROR:  ${p.code}: ${p.message}\n`);
        throw new PaxdError('corruption', SQLSTATE.data_corrupted, `table ${table}: ${r.problems.length} damaged file(s) of ${r.files}`);
      }
      out(`table ${table} ok: snapshot ${r.snapshot}, ${r.files} files, ${r.groups} row groups, ${r.zones} zones, ${formatBytes(r.bytes)} verified\n`);
    } finally {
      await db.close();
    }
  });
}
