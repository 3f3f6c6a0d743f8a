/**
 * The parser thread of ./parse.ts (parseInWorker, for query strings too long to parse on the
 * event loop): parses each request with libpg-query and answers with the tree as JSON text (long
 * runs of constants in column form: ./const-lists.ts), or
 * with the error's name, message and libpg-query's details, which ./parse.ts turns into the
 * errors a parse on the calling thread raises. Started by src/runtime's startWorker.
 */
import { parentPort } from 'node:worker_threads';
import { loadModule, parseSync } from 'libpg-query';
import { CONST_LIST_MIN, compactConstLists } from './const-lists.js';

export interface ParseRequest {
  readonly id: number;
  readonly sql: string;
}

export interface ParseAnswer {
  readonly id: number;
  readonly ok: boolean;
  readonly json?: string;
  readonly name?: string | undefined;
  readonly message?: string;
  readonly sqlDetails?: unknown;
}

const ready = loadModule();
parentPort?.on('message', async (m: ParseRequest) => {
  let a: ParseAnswer;
  try {
    await ready;
    a = { id: m.id, ok: true, json: JSON.stringify(compactConstLists(parseSync(m.sql), CONST_LIST_MIN)) };
  } catch (e) {
    const details = (e as { sqlDetails?: unknown } | null)?.sqlDetails;
    a = { id: m.id, ok: false, name: (e as Error | null)?.name, message: e instanceof Error ? e.message : String(e), sqlDetails: details };
  }
  parentPort?.postMessage(a);
});
