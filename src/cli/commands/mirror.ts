/** `paxd mirror --pg postgres://…`: every table as a postgres_fdw foreign table there (docs/MIRROR.md). */
import type { Command } from 'commander';
import { usage } from '../../types/index.js';
import { MIRROR_DEFAULTS } from '../../mirror/index.js';
import { dataOption, positiveInt, type Io } from '../options.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(
    cmd
      .option('--pg <url>', 'the PostgreSQL to declare them in, e.g. postgres://postgres@localhost:5432/app (env PAXD_MIRROR_PG)')
      .option('--schema <name>', 'schema of the foreign tables in PostgreSQL (created if missing)', MIRROR_DEFAULTS.schema)
      .option('--server <name>', 'name of the foreign server', MIRROR_DEFAULTS.server)
      .option('--host <host>', 'host of paxd serve as PostgreSQL reaches it', MIRROR_DEFAULTS.host)
      .option('--port <port>', 'port of paxd serve as PostgreSQL reaches it', positiveInt('--port'), MIRROR_DEFAULTS.port)
      .option('--dbname <name>', 'dbname postgres_fdw sends to paxd', MIRROR_DEFAULTS.dbname)
      .option('--user <name>', 'paxd user of the user mapping', MIRROR_DEFAULTS.user)
      .option('--password <pw>', 'password of the user mapping (env PAXD_MIRROR_PASSWORD; postgres_fdw requires one for non-superusers); never printed')
      .option('--for <role>', 'local role of the user mapping: CURRENT_USER, PUBLIC or a role name', MIRROR_DEFAULTS.forRole)
      .option('--fetch-size <n>', 'rows per FETCH', positiveInt('--fetch-size'), MIRROR_DEFAULTS.fetchSize)
      .option('--no-use-remote-estimate', 'do not ask paxd for estimates while planning (joins and aggregates are then pushed down less often)')
      .option('--dry-run', 'print the SQL it would run (against the current state of --pg if given, else from nothing) and change nothing'),
  ).action(async (o) => {
    const url: string | undefined = o.pg ?? process.env.PAXD_MIRROR_PG;
    if (url === undefined && !o.dryRun) throw usage('paxd mirror needs --pg postgres://… (or PAXD_MIRROR_PG)');
    const password: string | undefined = o.password ?? process.env.PAXD_MIRROR_PASSWORD;
    const [{ Database }, { runMirror, planFromNothing, mirrorOptions, maskUrl }] = await Promise.all([import('../../table/database.js'), import('../../mirror/index.js')]);
    const options = mirrorOptions({
      pg: url ?? '',
      schema: o.schema,
      server: o.server,
      host: o.host,
      port: o.port,
      dbname: o.dbname,
      user: o.user,
      ...(password !== undefined ? { password } : {}),
      forRole: o.for,
      fetchSize: o.fetchSize,
      useRemoteEstimate: o.useRemoteEstimate !== false,
    });
    const db = await Database.open(o.data);
    try {
      const r = url === undefined ? await planFromNothing(db, options) : await runMirror(db, options, { dryRun: o.dryRun === true });
      if (o.dryRun) {
        for (const s of r.steps) out(`${s.display};\n`);
        if (r.steps.length === 0) out(`-- nothing to do: PostgreSQL already mirrors every table\n`);
        return;
      }
      const where = `server ${options.server}, schema ${options.schema} in ${maskUrl(options.pg)}`;
      out(
        `mirrored ${r.created.length + r.altered.length + r.unchanged.length} table(s) to ${where}: ` +
          `${r.created.length} created, ${r.altered.length} altered, ${r.dropped.length} dropped, ${r.unchanged.length} unchanged\n`,
      );
      if (password === undefined && r.steps.some((s) => s.kind === 'mapping'))
        process.stderr.write('paxd: note: the user mapping has no password; postgres_fdw lets only superusers use it (set --password or PAXD_MIRROR_PASSWORD)\n');
    } finally {
      await db.close();
    }
  });
}
