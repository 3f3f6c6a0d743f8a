/**
 * A small least-recently-used cache of object bytes, bounded in total bytes. Only for
 * objects that never change: on S3 every paxd object is written once (data files, footers,
 * snapshots, delete vectors; names are never reused) and only vacuum deletes them, so a
 * cached range can never be stale. The S3 store evicts a path on delete all the same.
 *
 * Keys are `path` (the whole object) or `path@offset+length` (a range, e.g. a footer).
 */
export class ByteCache {
  private readonly entries = new Map<string, Uint8Array>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    /** Total bytes kept. 0 disables the cache. */
    readonly maxBytes: number,
    /** Larger values are never cached. */
    readonly maxEntryBytes: number,
  ) {}

  get(key: string): Uint8Array | undefined {
    const v = this.entries.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key); // re-insert: Map order is least recently used first
    this.entries.set(key, v);
    return v;
  }

  set(key: string, value: Uint8Array): void {
    if (value.byteLength > this.maxEntryBytes || value.byteLength > this.maxBytes) return;
    this.remove(key);
    this.entries.set(key, value);
    this.bytes += value.byteLength;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.byteLength;
    }
  }

  /** Drops the whole object and every cached range of `path`. */
  evictPath(path: string): void {
    for (const k of [...this.entries.keys()]) if (k === path || k.startsWith(path + '@')) this.remove(k);
  }

  get size(): number {
    return this.bytes;
  }

  private remove(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.bytes -= old.byteLength;
  }
}
