/** The Node process's machinery that every layer may use: worker threads of this tree (./worker.ts). */
export { startWorker } from './worker.js';
