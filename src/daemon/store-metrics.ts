/**
 * The store as the daemon uses it, counted: reads and bytes read (data files apart from
 * snapshots), objects created, for `/metrics` (`paxd_store_reads_total`,
 * `paxd_store_read_bytes_total{kind}`). Every call is passed through unchanged.
 */
import type { ObjectStore, ObjectWriter } from '../storage/index.js';
import { ForwardingStore } from '../storage/index.js';
import type { DaemonMetrics } from './metrics.js';

const SNAPSHOTS = '/_snapshots/';

export class CountedStore extends ForwardingStore {
  constructor(
    inner: ObjectStore,
    private readonly metrics: DaemonMetrics,
  ) {
    super(inner);
  }

  override async read(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    const b = await this.inner.read(path, offset, length);
    const kind = path.includes(SNAPSHOTS) ? 'snapshot' : 'data';
    this.metrics.storeReads.inc({ kind });
    this.metrics.storeReadBytes.inc({ kind }, b.byteLength);
    return b;
  }

  override create(path: string): Promise<ObjectWriter> {
    this.metrics.storeObjectsCreated.inc();
    return this.inner.create(path);
  }
}
