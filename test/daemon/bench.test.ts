/** `npm run bench -- inbox` at a small size (docs/DAEMON.md): it runs and reports its figures. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { run } from '../../bench/inbox.js';

test('bench inbox: small and large phases report files/s, rows/s and files after compaction', async () => {
  let out = '';
  await run(['--small', '40', '--small-rows', '10', '--large', '1', '--large-rows', '20000', '--quiet'], (s) => (out += s));
  assert.match(out, /^small: 40 files × 10 rows .* \d+ files\/s, \d+ rows\/s, .*; \d+ commits; data files \d+ → 1 after compaction$/m);
  assert.match(out, /^large: 1 files × 20000 rows .* rows\/s/m);
});

test.run();
