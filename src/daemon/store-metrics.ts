/**
 * The store as the daemon uses it, counted: reads and bytes read (data files apart from
 * snapshots), objects created, for `/metrics` (`paxd_store_reads_total`,
 * `paxd_store_read_bytes_total{kind}`). Every call is passed through unchanged.
 */
import type { ObjectInfo, ObjectStore, ObjectWriter } from '../storage/index.js';
import type { DaemonMetrics } from './metrics.js';

const SNAPSHOTS = '/_snapshots/';

export class CountedStore implements ObjectStore {
  constructor(
    private readonly inner: ObjectStore,
    private readonly metrics: DaemonMetrics,
  ) {}

  get uri(): string {
    return this.inner.uri;
  }

  get canAppend(): boolean {
    return this.inner.canAppend;
  }

  async read(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    const b = await this.inner.read(path, offset, length);
    const kind = path.includes(SNAPSHOTS) ? 'snapshot' : 'data';
    this.metrics.storeReads.inc({ kind });
    this.metrics.storeReadBytes.inc({ kind }, b.byteLength);
    return b;
  }

  stat(path: string): Promise<ObjectInfo | null> {
    return this.inner.stat(path);
  }

  create(path: string): Promise<ObjectWriter> {
    this.metrics.storeObjectsCreated.inc();
    return this.inner.create(path);
  }

  append(path: string, offset: number): Promise<ObjectWriter> {
    return this.inner.append(path, offset);
  }

  putIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    return this.inner.putIfAbsent(path, bytes);
  }

  list(prefix: string): Promise<ObjectInfo[]> {
    return this.inner.list(prefix);
  }

  delete(path: string): Promise<void> {
    return this.inner.delete(path);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
