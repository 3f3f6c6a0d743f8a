/**
 * An ObjectStore that passes every call to another: the base of wrappers that watch or count
 * what goes through (the daemon's store metrics, the benches' byte counters), which override
 * only the calls they look at.
 */
import type { ObjectInfo, ObjectStore, ObjectWriter } from './store.js';

export class ForwardingStore implements ObjectStore {
  constructor(readonly inner: ObjectStore) {}

  get uri(): string {
    return this.inner.uri;
  }

  get canAppend(): boolean {
    return this.inner.canAppend;
  }

  read(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    return this.inner.read(path, offset, length);
  }

  stat(path: string): Promise<ObjectInfo | null> {
    return this.inner.stat(path);
  }

  create(path: string): Promise<ObjectWriter> {
    return this.inner.create(path);
  }

  append(path: string, offset: number): Promise<ObjectWriter> {
    return this.inner.append(path, offset);
  }

  putIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    return this.inner.putIfAbsent(path, bytes);
  }

  list(prefix: string, startAfter?: string): Promise<ObjectInfo[]> {
    return this.inner.list(prefix, startAfter);
  }

  delete(path: string): Promise<void> {
    return this.inner.delete(path);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
