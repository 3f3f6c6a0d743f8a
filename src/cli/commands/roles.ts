/**
 * `paxd roles [--json]`: the roles and grants the store holds (made by CREATE ROLE and GRANT,
 * through the wire, HTTP or `paxd sql`; docs/SECURITY.md "Roles and privileges"). Users that
 * only the daemon's users file defines are not in the store, and not listed.
 *
 *   $ paxd sql "CREATE ROLE grafana LOGIN PASSWORD 's3cret'" && paxd sql "GRANT SELECT ON events TO grafana"
 *   $ paxd roles
 *   role     login  superuser  read_only  password
 *   grafana  yes    no         no         yes
 *
 *   table   grantee  privileges
 *   events  grafana  SELECT
 */
import type { Command } from 'commander';
import { dataOption, type Io } from '../options.js';
import { printTable } from '../output.js';

export function define(cmd: Command, { out }: Io): void {
  dataOption(
    cmd.option('--json', 'JSON output: {"roles": {name: {superuser, login, readAllData, password: bool}}, "tables": {…}, "schemaCreate": […]}'),
  ).action(async (o) => {
    const { Database } = await import('../../table/database.js');
    const { roleCatalogOf } = await import('../../table/roles.js');
    const db = await Database.open(o.data);
    try {
      const state = await roleCatalogOf(db.store).current();
      const yes = (b: boolean) => (b ? 'yes' : 'no');
      const roles = Object.entries(state.roles).sort(([a], [b]) => (a < b ? -1 : 1));
      if (o.json) {
        // Never the verifiers: whether a role has a password, not what it is.
        const masked = Object.fromEntries(
          roles.map(([n, r]) => [n, { superuser: r.superuser, login: r.login, readAllData: r.readAllData, password: r.password !== null }]),
        );
        out(JSON.stringify({ roles: masked, tables: state.tables, schemaCreate: state.schemaCreate }) + '\n');
        return;
      }
      if (roles.length === 0) out(`no roles in ${db.store.uri} (users of the daemon's users file are not stored here)\n`);
      else
        printTable(
          out,
          ['role', 'login', 'superuser', 'read_only', 'password'],
          roles.map(([n, r]) => [n, yes(r.login), yes(r.superuser), yes(r.readAllData), yes(r.password !== null)]),
        );
      const grants: string[][] = [];
      for (const [t, acl] of Object.entries(state.tables).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (acl.owner !== null) grants.push([t, acl.owner, 'owner']);
        for (const [g, ps] of Object.entries(acl.grants)) grants.push([t, g === 'public' ? 'PUBLIC' : g, ps.join(', ')]);
      }
      for (const g of state.schemaCreate) grants.push(['schema public', g === 'public' ? 'PUBLIC' : g, 'CREATE']);
      if (grants.length > 0) {
        out('\n');
        printTable(out, ['table', 'grantee', 'privileges'], grants);
      }
    } finally {
      await db.close();
    }
  });
}
