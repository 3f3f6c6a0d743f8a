/**
 * A query worker thread (./parallel.ts): runs one partition of a compiled aggregating
 * pipeline over its own handle on the store, at the snapshot the query pinned, and replies
 * with the partition's aggregation state.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import { Table } from '../../table/index.js';
import type { Field } from '../../types/index.js';
import { SQLSTATE, isPaxdError } from '../../types/index.js';
import { type ObjectStore, openStore, type SnapshotJson } from '../../storage/index.js';
import type { Predicate, ScanStats } from '../../scan/index.js';
import type { BoundSelect } from '../ir.js';
import type { Expr } from '../expr.js';
import { type Partial, compile, partialOf, partition, scanCompiled } from './pipeline.js';

export interface WorkerRequest {
  readonly uri: string;
  readonly table: string;
  readonly snapshot: SnapshotJson;
  readonly columns: readonly Field[];
  readonly grouping: NonNullable<BoundSelect['grouping']>;
  readonly residual: Expr | null;
  readonly where: Predicate | undefined;
  readonly part: number;
  readonly parts: number;
  readonly workMem: number | undefined;
  /** The statement's stop flag, shared with the main thread (./pipeline.ts RunOptions.stop). */
  readonly stop: Int32Array;
}

export type WorkerReply =
  | { readonly ok: true; readonly partial: Partial | null; readonly stats: ScanStats; readonly rows: number }
  | { readonly ok: false; readonly error: { kind: string; code: string; message: string; position?: number | undefined } };

const stores = new Map<string, Promise<ObjectStore>>();

async function handle(req: WorkerRequest): Promise<WorkerReply> {
  let store = stores.get(req.uri);
  if (store === undefined) {
    store = openStore(req.uri);
    stores.set(req.uri, store);
  }
  const table = new Table(await store, req.table, req.snapshot);
  const query = { table, columns: req.columns, grouping: req.grouping, distinct: false } as unknown as BoundSelect;
  const input = { query, residual: req.residual, where: req.where };
  const c = compile(input);
  if (c === null) throw new Error('query worker: the plan did not compile here');
  let rows = 0;
  const r = await scanCompiled(input, c, (n) => (rows += n), {
    groups: partition(req.part, req.parts),
    stop: req.stop,
    ...(req.workMem !== undefined ? { workMem: req.workMem } : {}),
  });
  if (r === null) return { ok: true, partial: null, stats: {} as ScanStats, rows };
  return { ok: true, partial: partialOf(r.state, c), stats: r.stats, rows };
}

const port = (workerData as { port: MessagePort }).port;
port.on('message', (m: { id: number; req: WorkerRequest }) => {
  handle(m.req).then(
    (reply) => port.postMessage({ id: m.id, reply }),
    (e: unknown) => {
      const error = isPaxdError(e)
        ? { kind: e.kind, code: e.code, message: e.message, position: e.position }
        : { kind: 'internal', code: SQLSTATE.internal_error, message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
      port.postMessage({ id: m.id, reply: { ok: false, error } });
    },
  );
});
