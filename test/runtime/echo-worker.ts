// A worker module for ./worker.test.ts: TypeScript (a type annotation tsx must strip), answers each message with its double.
import { parentPort, workerData } from 'node:worker_threads';

const factor: number = (workerData as { factor: number }).factor;
parentPort!.on('message', (n: number) => parentPort!.postMessage({ doubled: n * factor, file: import.meta.url }));
