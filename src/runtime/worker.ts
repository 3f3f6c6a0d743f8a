/**
 * Worker threads that run a module of this tree. The same code runs three ways: from source
 * under tsx (tests, benches: `.ts` files, which a new thread cannot load until tsx is registered
 * in it), from tsc's per-file output in dist/, and from the CLI bundle (dist/cli-bundle, where
 * each worker module is an entry of its own beside the chunks: bin/bundle-cli.mjs). The caller
 * names its worker module as it is named once built, next to itself:
 *
 *   const w = startWorker(new URL('./encode-worker.js', import.meta.url), { workerData });
 *
 * Built, that file is started as it is. From source this module is a `.ts` file too (a process
 * runs all of the tree one way), so the thread first registers tsx and then imports
 * `./encode-worker.ts`.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Whether this process runs the tree from its TypeScript source (under tsx). */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** Starts a worker thread running the module `entry` (its built `.js` name; see above). */
export function startWorker(entry: URL, options: WorkerOptions = {}): Worker {
  if (!FROM_SOURCE) return new Worker(entry, options);
  const api = import.meta.resolve('tsx/esm/api');
  const source = entry.href.replace(/\.js$/, '.ts');
  return new Worker(`import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(source)}); })`, { ...options, eval: true });
}
