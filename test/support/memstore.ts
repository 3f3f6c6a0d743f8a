/**
 * A tiny in-memory ObjectStore for tests: objects are byte arrays in a Map. Ranged reads past
 * the end are corruption errors naming the path and offset, as store.ts requires.
 */
import { corruption, PaxdError } from '../../src/types/errors.js';
import type { ObjectInfo, ObjectStore, ObjectWriter } from '../../src/storage/store.js';

export class MemStore implements ObjectStore {
  readonly uri = 'mem://';
  readonly canAppend = true;
  readonly objects = new Map<string, Uint8Array>();
  /** Ranged reads served, for tests that count them. */
  reads = 0;

  async read(path: string, offset?: number, length?: number): Promise<Uint8Array> {
    const o = this.objects.get(path);
    if (o === undefined) throw new PaxdError('not_found', '58P01', `could not open file "${path}": no such file`, { file: path });
    this.reads++;
    if (offset === undefined) return o.slice();
    const len = length ?? o.byteLength - offset;
    if (offset + len > o.byteLength) throw corruption(path, o.byteLength, `short read: ${len} bytes at ${offset}, object has ${o.byteLength}`);
    return o.slice(offset, offset + len);
  }

  async stat(path: string): Promise<ObjectInfo | null> {
    const o = this.objects.get(path);
    return o === undefined ? null : { path, size: o.byteLength, mtimeMs: 0 };
  }

  async create(path: string): Promise<ObjectWriter> {
    if (this.objects.has(path)) throw new PaxdError('exists', '58P02', `could not create file "${path}": file exists`, { file: path });
    return this.writer(path, []);
  }

  async append(path: string, offset: number): Promise<ObjectWriter> {
    const o = this.objects.get(path) ?? new Uint8Array(0);
    return this.writer(path, [o.slice(0, offset)]);
  }

  private writer(path: string, parts: Uint8Array[]): ObjectWriter {
    const store = this;
    let position = parts.reduce((n, p) => n + p.byteLength, 0);
    return {
      path,
      get position() {
        return position;
      },
      async write(bytes: Uint8Array) {
        parts.push(bytes.slice());
        position += bytes.byteLength;
      },
      async close() {
        store.objects.set(path, new Uint8Array(Buffer.concat(parts)));
      },
      async abort() {
        store.objects.delete(path);
      },
    };
  }

  async putIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    if (this.objects.has(path)) return false;
    this.objects.set(path, bytes.slice());
    return true;
  }

  async list(prefix: string): Promise<ObjectInfo[]> {
    return [...this.objects.keys()].filter((p) => p.startsWith(prefix)).sort().map((p) => ({ path: p, size: this.objects.get(p)!.byteLength, mtimeMs: 0 }));
  }

  async delete(path: string): Promise<void> {
    this.objects.delete(path);
  }

  async close(): Promise<void> {}
}

