/**
 * The storage conformance suite against a real S3 HTTP server (README.md "Tables in S3"): the
 * guarantees of src/storage/store.ts — exact ranges, short reads as corruption, not_found,
 * exclusive create, putIfAbsent races with exactly one winner, sorted paginated list,
 * delete — plus what is S3's own: multipart upload, no append (0A000), the cache, retries.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { S3Store } from '../../src/storage/s3.js';
import { openStore } from '../../src/storage/open.js';
import { DEFAULT_RETRY, isTransient, withRetries } from '../../src/storage/s3-retry.js';
import { startS3, type S3Server } from '../support/s3.js';
import { rejection } from '../storage/helpers.js';

let s3: S3Server;
let n = 0;
/** A store on a fresh prefix of the shared server. */
function store(opts: Partial<ConstructorParameters<typeof S3Store>[0]> = {}): S3Store {
  return new S3Store({ bucket: s3.bucket, prefix: `conf${++n}/root`, ...opts });
}

function bytes(len: number, seed = 1): Uint8Array {
  const b = new Uint8Array(len);
  for (let i = 0; i < len; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

test.before(async () => {
  s3 = await startS3();
});
test.after(async () => {
  await s3.close();
});

test('openStore(s3://…) gives an S3 store that cannot append', async () => {
  const st = await openStore(s3.uri('x/y/'));
  assert.instance(st, S3Store);
  assert.is(st.uri, `s3://${s3.bucket}/x/y`);
  assert.is(st.canAppend, false);
  const e = await rejection(st.append('t/seg', 0));
  assert.is(e.code, '0A000');
  assert.is((await rejection(openStore('s3://'))).kind, 'usage');
  await st.close();
});

test('create/write/close then ranged reads return exactly the bytes asked for', async () => {
  const st = store();
  const data = bytes(10_000);
  const w = await st.create('t/data/a.bin');
  for (const [s, e] of [[0, 10], [10, 995], [995, 1500], [1500, 4000], [4000, 4001], [4001, 10_000]] as const) {
    await w.write(data.subarray(s, e));
    assert.is(w.position, e);
  }
  assert.is(await st.stat('t/data/a.bin'), null, 'not visible before close');
  await w.close();
  assert.equal(await st.read('t/data/a.bin'), data);
  assert.equal(await st.read('t/data/a.bin', 123, 4567), data.subarray(123, 123 + 4567));
  assert.equal(await st.read('t/data/a.bin', 9990), data.subarray(9990));
  assert.equal(await st.read('t/data/a.bin', 10_000), new Uint8Array(0));
  assert.equal(await st.read('t/data/a.bin', 10_000, 0), new Uint8Array(0));
  const info = await st.stat('t/data/a.bin');
  assert.is(info?.size, 10_000);
  assert.ok(Math.abs(info!.mtimeMs - Date.now()) < 60_000);
  assert.is(await st.stat('t/data/nope'), null);
  await st.close();
});

test('large objects go up as multipart uploads; abort leaves nothing', async () => {
  const st = store({ partBytes: 64 << 10 }); // s3rver does not enforce S3's 5 MiB part minimum
  const data = bytes(300_000, 3);
  const w = await st.create('t/data/big.bin');
  for (let at = 0; at < data.byteLength; at += 70_001) await w.write(data.subarray(at, Math.min(at + 70_001, data.byteLength)));
  const before = st.metrics.requests;
  await w.close();
  assert.ok(st.metrics.requests - before >= 1);
  assert.equal(await st.read('t/data/big.bin'), data);
  assert.equal(await st.read('t/data/big.bin', 65_530, 20), data.subarray(65_530, 65_550));

  const w2 = await st.create('t/data/aborted.bin');
  await w2.write(data);
  await w2.abort();
  assert.is(await st.stat('t/data/aborted.bin'), null);
  const w3 = await st.create('t/data/small-aborted.bin');
  await w3.write(bytes(10));
  await w3.abort();
  assert.is(await st.stat('t/data/small-aborted.bin'), null);
  await st.close();
});

test('short reads are corruption (XX001) naming file and offset; missing is not_found', async () => {
  const st = store();
  assert.ok(await st.putIfAbsent('t/f', bytes(100)));
  const e = await rejection(st.read('t/f', 90, 20));
  assert.is(e.kind, 'corruption');
  assert.is(e.code, 'XX001');
  assert.is(e.file, 't/f');
  assert.is(e.offset, 90);
  assert.match(e.message, 'expected 20 bytes at offset 90, object has 100');
  const past = await rejection(st.read('t/f', 200, 1));
  assert.is(past.kind, 'corruption');
  assert.is(past.offset, 200);
  assert.match(past.message, 'object has 100');

  const missing = await rejection(st.read('t/nope', 0, 1));
  assert.is(missing.kind, 'not_found');
  assert.is(missing.code, '58P01');
  assert.is(missing.file, 't/nope');
  assert.is((await rejection(st.read('t/nope'))).kind, 'not_found');
  assert.is((await rejection(st.read('t/nope', 0, 0))).kind, 'not_found');
  await st.close();
});

test('create is exclusive; invalid paths are rejected', async () => {
  const st = store();
  const w = await st.create('t/x');
  await w.write(bytes(10));
  await w.close();
  assert.is((await rejection(st.create('t/x'))).kind, 'exists');
  const w2 = await st.create('t/empty');
  await w2.close();
  assert.is((await st.stat('t/empty'))?.size, 0);
  assert.equal(await st.read('t/empty'), new Uint8Array(0));
  for (const p of ['', '/abs', 'a/../b', 'a//b', './a', 'a/']) assert.is((await rejection(st.read(p))).kind, 'usage', p);
  await st.close();
});

test('putIfAbsent: many concurrent writers (two clients), exactly one wins', async () => {
  const a = store();
  const b = new S3Store({ bucket: s3.bucket, prefix: a.prefix });
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).putIfAbsent('t/_snapshots/1.snap', bytes(1000, i))));
  assert.is(results.filter((r) => r).length, 1);
  const winner = results.indexOf(true);
  assert.equal(await new S3Store({ bucket: s3.bucket, prefix: a.prefix, cacheBytes: 0 }).read('t/_snapshots/1.snap'), bytes(1000, winner));
  assert.is(await a.putIfAbsent('t/_snapshots/1.snap', bytes(1)), false);
  assert.equal((await a.list('t/')).map((o) => o.path), ['t/_snapshots/1.snap']);
  await a.close();
  await b.close();
});

test('list is recursive under the prefix, sorted, paginated, and stays inside the root', async () => {
  const st = store({ listPageSize: 2 });
  const other = new S3Store({ bucket: s3.bucket, prefix: st.prefix + 'x' }); // a sibling root
  await other.putIfAbsent('t/outside', bytes(1));
  for (const p of ['t/b', 't/a/2', 't/a/1', 'u/x', 'tt/y', 't/_snapshots/00001.snap']) await st.putIfAbsent(p, bytes(3));
  assert.equal((await st.list('t/')).map((o) => o.path), ['t/_snapshots/00001.snap', 't/a/1', 't/a/2', 't/b']);
  assert.equal((await st.list('t')).map((o) => o.path), ['t/_snapshots/00001.snap', 't/a/1', 't/a/2', 't/b', 'tt/y']);
  assert.equal((await st.list('t/a/')).map((o) => o.path), ['t/a/1', 't/a/2']);
  assert.is((await st.list('nope/')).length, 0);
  const all = await st.list('');
  assert.is(all.length, 6);
  assert.ok(all.every((o) => o.size === 3));
  await st.delete('t/b');
  await st.delete('t/b'); // missing: fine
  assert.is(await st.stat('t/b'), null);
  await st.close();
  await other.close();
});

test('small immutable objects are served from the cache; delete evicts', async () => {
  const st = store();
  await st.putIfAbsent('t/_snapshots/1.snap', bytes(500));
  const w = await st.create('t/data/1.pax');
  await w.write(bytes(100_000));
  await w.close();
  const gets = st.metrics.gets;
  for (let i = 0; i < 3; i++) {
    assert.equal(await st.read('t/_snapshots/1.snap'), bytes(500));
    assert.equal(await st.read('t/data/1.pax', 99_000, 1000), bytes(100_000).subarray(99_000));
  }
  assert.is(st.metrics.gets - gets, 1, 'one GET: the footer range; the snapshot was cached when written');
  await st.delete('t/_snapshots/1.snap');
  assert.is((await rejection(st.read('t/_snapshots/1.snap'))).kind, 'not_found');
  await st.close();
});

test('retry policy: transient failures are retried with backoff, others are not', async () => {
  const fast = { ...DEFAULT_RETRY, baseDelayMs: 1, maxDelayMs: 2, attemptTimeoutMs: 200 };
  const s503 = Object.assign(new Error('Slow Down'), { name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
  const s403 = Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  assert.ok(isTransient(s503));
  assert.ok(isTransient(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
  assert.not.ok(isTransient(s403));
  let calls = 0;
  const seen: boolean[] = [];
  const v = await withRetries(fast, async (_s, info) => {
    seen.push(info.uncertain);
    if (++calls < 3) throw s503;
    return 'ok';
  });
  assert.is(v, 'ok');
  assert.equal(seen, [false, true, true]);
  calls = 0;
  await withRetries(fast, async () => {
    calls++;
    throw s403;
  }).catch(() => undefined);
  assert.is(calls, 1);
  // A hung attempt is abandoned after attemptTimeoutMs and retried.
  calls = 0;
  const t0 = Date.now();
  const r = await withRetries(fast, (signal) => (++calls === 1 ? new Promise<string>((_, rej) => signal.addEventListener('abort', () => rej(signal.reason))) : Promise.resolve('second')));
  assert.is(r, 'second');
  assert.ok(Date.now() - t0 >= 190);
  // Exhausted: an io error naming the path and the attempts.
  const st = new S3Store({ bucket: s3.bucket, prefix: 'nowhere', clientConfig: { endpoint: 'http://127.0.0.1:1' }, retry: fast });
  const e = await rejection(st.read('t/x', 0, 10));
  assert.is(e.kind, 'io');
  assert.is(e.code, '58030');
  assert.is(e.file, 't/x');
  assert.match(e.message, `after ${fast.maxAttempts} attempts`);
  await st.close();
});

test.run();
