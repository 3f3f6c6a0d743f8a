/** `paxd vacuum TABLE [--grace 1h]`: removes what no retained snapshot needs, once older than the grace. */
import type { Command } from 'commander';
import { DEFAULT_VACUUM_GRACE_MS } from '../../storage/index.js';
import { formatSetting, VACUUM_GRACE } from '../../types/index.js';
import { dataOption, unitFlag, type Io } from '../options.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(
    cmd.option(
      '--grace <duration>',
      'only remove what is older than this, as the daemon\'s vacuum_grace_ms (a bare number is milliseconds; e.g. 0, 30s, 10min, 1h)',
      formatSetting(VACUUM_GRACE, DEFAULT_VACUUM_GRACE_MS),
    ),
  ).action(async (table: string, o) => {
    const graceMs = unitFlag('--grace', VACUUM_GRACE)(o.grace);
    const { Database } = await import('../../table/database.js');
    const db = await Database.open(o.data);
    try {
      const r = await db.vacuum(table, { graceMs });
      out(`vacuumed ${table}: ${JSON.stringify(r)}\n`);
    } finally {
      await db.close();
    }
  });
}
