/**
 * src/runtime/worker.ts: a worker module named by its built `.js` name runs from its `.ts`
 * source under tsx, with the options given (workerData here). The built side (dist/, the CLI
 * bundle's worker entries) is the same `new Worker(url, options)` that Node documents.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { once } from 'node:events';
import { startWorker } from '../../src/runtime/index.js';

test('startWorker runs ./echo-worker.ts from source for ./echo-worker.js, with its workerData', async () => {
  const w = startWorker(new URL('./echo-worker.js', import.meta.url), { workerData: { factor: 2 } });
  try {
    w.postMessage(21);
    const [answer] = (await once(w, 'message')) as [{ doubled: number; file: string }];
    assert.is(answer.doubled, 42);
    assert.ok(answer.file.endsWith('/test/runtime/echo-worker.ts'), answer.file);
  } finally {
    await w.terminate();
  }
});

test('a worker module that does not exist fails the worker with an error naming it', async () => {
  const w = startWorker(new URL('./no-such-worker.js', import.meta.url));
  const [e] = (await once(w, 'error')) as [Error];
  assert.match(e.message, /no-such-worker\.ts/);
  await w.terminate();
});

test.run();
