/**
 * The roles log (src/table/roles.ts, docs/FORMAT.md "The roles log"): commits are exclusive
 * creates, so of concurrent writers none loses its change (the loser reloads and applies it
 * again); a state survives reopening; a damaged state file is XX001 naming the file; the same
 * on S3 (s3rver with If-None-Match).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/table/database.js';
import { RoleCatalog, roleCatalogOf, ROLES_DIR } from '../../src/table/index.js';
import type { ObjectStore } from '../../src/storage/index.js';
import { startS3 } from '../support/s3.js';
import { query } from '../../src/engine/index.js';
import { scramVerifier } from '../../src/table/index.js';
import { tempDir } from '../support/tmp.js';

/** 20 writers, each its own catalog (as 20 daemons), add one role each at the same time. */
async function race(store: ObjectStore): Promise<void> {
  const writers = Array.from({ length: 20 }, () => new RoleCatalog(store));
  await Promise.all(
    writers.map((c, i) =>
      c.commit((d) => {
        d.roles[`r${i}`] = { superuser: false, login: true, password: null, readAllData: false };
      }),
    ),
  );
  const state = await new RoleCatalog(store).current();
  assert.is(state.id, 20, 'one state per commit');
  assert.equal(Object.keys(state.roles).sort(), Array.from({ length: 20 }, (_, i) => `r${i}`).sort(), 'no change lost');
  assert.is(state.parent, 19);
}

test('concurrent commits on local disk: every change kept, states numbered 1..20', async () => {
  const db = await Database.open(tempDir());
  await race(db.store);
  await db.close();
});

test('a state survives reopening; a changed byte is XX001 naming the state file', async () => {
  const dir = tempDir();
  const db = await Database.open(dir);
  await roleCatalogOf(db.store).commit((d) => {
    d.schemaCreate.push('loader');
  });
  await db.close();
  const again = await Database.open(dir);
  assert.equal((await roleCatalogOf(again.store).current()).schemaCreate, ['loader']);
  await again.close();
  const file = join(dir, ROLES_DIR, `${'1'.padStart(20, '0')}.roles`);
  const bytes = readFileSync(file);
  const at = bytes.length - 3;
  bytes.writeUInt8(bytes.readUInt8(at) ^ 0x20, at);
  writeFileSync(file, bytes);
  const damaged = await Database.open(dir);
  try {
    await roleCatalogOf(damaged.store).current();
    assert.unreachable('a damaged state is read');
  } catch (e) {
    const x = e as { code: string; message: string; file?: string };
    assert.is(x.code, 'XX001');
    assert.match(x.message, `${ROLES_DIR}/00000000000000000001.roles`);
  } finally {
    await damaged.close();
  }
});

test('concurrent commits on S3 (If-None-Match: *): every change kept', async () => {
  const s3 = await startS3();
  try {
    const db = await Database.open(s3.uri('roles'));
    await race(db.store);
    await db.close();
  } finally {
    await s3.close();
  }
});

test('roles of the users file: read-only as configured; ALTER ROLE stores a copy that keeps its rights; CREATE of the name is 42710, DROP 0A000', async () => {
  const db = await Database.open(tempDir());
  await db.createTable('t', [{ name: 'id', type: 'int4' }]);
  const v = scramVerifier('pw');
  roleCatalogOf(db.store).configure({
    dash: { password: v, superuser: false, readAllData: true },
    admin: { password: v, superuser: true, readAllData: false },
  });
  const as = async (user: string | undefined, sql: string) => {
    try {
      return (await query(db, sql, undefined, user === undefined ? undefined : { user })).tag ?? 'ok';
    } catch (e) {
      return `${(e as { code: string }).code} ${(e as Error).message}`;
    }
  };
  assert.is(await as('dash', 'SELECT * FROM t'), 'ok');
  assert.is(await as('dash', 'INSERT INTO t VALUES (1)'), '42501 permission denied for table t');
  assert.is(await as('admin', 'INSERT INTO t VALUES (1)'), 'INSERT 0 1');
  assert.is(await as('admin', 'CREATE ROLE dash'), '42710 role "dash" already exists');
  assert.is(await as('dash', "ALTER ROLE dash PASSWORD 'new'"), 'ALTER ROLE', 'a role changes its own password');
  const state = await roleCatalogOf(db.store).current();
  assert.equal({ ...state.roles.dash!, password: state.roles.dash!.password !== v }, { superuser: false, login: true, password: true, readAllData: true });
  assert.is(await as('dash', 'INSERT INTO t VALUES (1)'), '42501 permission denied for table t', 'still read-only');
  assert.is(await as('admin', 'DROP ROLE dash'), '0A000 dropping role "dash", which the users file defines (remove it there) is not supported');
  assert.is(await as('admin', 'DROP ROLE admin'), '55006 current user cannot be dropped');
  assert.equal(Object.keys(roleCatalogOf(db.store).loginVerifiers()).sort(), ['admin', 'dash']);
  await db.close();
});

test.run();
