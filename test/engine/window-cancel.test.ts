/**
 * A long window query stops as every statement does (./cancel.test.ts's pattern): a cancel or a
 * statement timeout (the signal aborted with 57014) ends it within milliseconds, wherever it is
 * (gathering rows, sorting a partition, walking frames), and a partition larger than the
 * statement's memory cap fails with 53200, never an exhausted process; the next query runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PaxdError, SQLSTATE } from '../../src/types/index.js';
import { query, textRows } from '../../src/engine/index.js';
import { configureMemory } from '../../src/engine/memory.js';
import { tempDir } from '../support/tmp.js';
import { createLongTables } from '../pgwire/cancel-tables.js';
import type { Database } from '../../src/table/database.js';

const canceled = () => new PaxdError('io', SQLSTATE.query_canceled, 'canceling statement due to user request');
const timedOut = () => new PaxdError('io', SQLSTATE.query_canceled, 'canceling statement due to statement timeout');

/** Window queries over the a × b cross join that run for many seconds. */
const LONG_WINDOWS: Record<string, string> = {
  'running sum over one partition': 'select count(*) from (select sum(a.id) over (order by a.s, b.id) as x from a, b where b.id < 400) q',
  'sliding frames per partition': 'select count(*) from (select max(a.s) over (partition by b.id order by a.id rows between 50 preceding and current row) as x from a, b where b.id < 400) q',
  'ranking over many partitions': 'select count(*) from (select rank() over (partition by a.id % 1000 order by b.s) as r, lag(a.s, 3) over (partition by b.id order by a.id) as l from a, b where b.id < 400) q',
};

let db: Database | null = null;
const tables = async (): Promise<Database> => (db ??= await createLongTables(tempDir(), false));

for (const [kind, sql] of Object.entries(LONG_WINDOWS)) {
  for (const [why, reason] of [['cancel', canceled], ['statement timeout', timedOut]] as const) {
    test(`${kind}: a ${why} stops it within milliseconds`, async () => {
      const d = await tables();
      const ac = new AbortController();
      let at = 0;
      setTimeout(() => {
        at = performance.now();
        ac.abort(reason());
      }, 400);
      try {
        await query(d, sql, undefined, { signal: ac.signal });
        assert.unreachable(`${kind} ran to its end`);
      } catch (e) {
        const ms = performance.now() - at;
        assert.is((e as PaxdError).code, '57014', String(e));
        assert.is((e as Error).message, reason().message);
        assert.ok(at > 0 && ms < 500, `${kind}: stopped ${ms.toFixed(1)} ms after the signal`);
      }
    });
  }
}

test('a partition past the statement memory cap fails with 53200, and the next query runs', async () => {
  const d = await tables();
  // 1 MB: the 20,000 rows of a (with their text) do not fit; the same rows sorted under a LIMIT do.
  configureMemory({ statementLimit: 1024 * 1024 });
  try {
    let code = '';
    try {
      await query(d, 'select max(id) over (partition by s) from a order by 1 limit 1');
    } catch (e) {
      code = (e as { code: string }).code;
    }
    assert.is(code, '53200');
    assert.equal(textRows(await query(d, 'select id, s from a order by s limit 1')), [['16841', 'aaakhboffsei']]);
  } finally {
    configureMemory({});
  }
});

test.after(async () => {
  if (db !== null) await db.close();
});

test.run();
