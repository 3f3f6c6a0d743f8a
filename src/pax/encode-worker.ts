/**
 * An encoder thread: receives columns (their buffers transferred, not copied), encodes them
 * with encodeChunk and sends the stored zone bytes back (transferred when they own their
 * ArrayBuffer). See ./encode-pool.ts.
 */
import { parentPort } from 'node:worker_threads';
import type { Column } from '../types/index.js';
import type { CodecName } from './codec.js';
import type { PaxFormat } from './footer.js';
import { encodeChunk } from './chunk-encode.js';

export interface EncodeJob {
  id: number;
  column: Column;
  zoneRows: number;
  codec: CodecName;
  format: PaxFormat;
}

export type EncodeReply =
  | { id: number; ok: true; format: PaxFormat; zones: ReturnType<typeof encodeChunk>['zones']; blobs: Uint8Array[]; stats: ReturnType<typeof encodeChunk>['stats'] }
  | { id: number; ok: false; message: string };

/** Buffers that can be handed over without detaching anything else (not a pool slice). */
export function ownedBuffers(arrays: readonly (ArrayBufferView | null)[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const a of arrays) {
    if (a === null) continue;
    const b = a.buffer;
    if (b instanceof ArrayBuffer && a.byteOffset === 0 && a.byteLength === b.byteLength) out.add(b);
  }
  return [...out];
}

if (parentPort !== null) {
  const port = parentPort;
  port.on('message', (job: EncodeJob) => {
    let reply: EncodeReply;
    let transfer: ArrayBuffer[] = [];
    try {
      const r = encodeChunk(job.column, job.zoneRows, job.codec, job.format);
      // A blob that does not own its buffer is copied so that it can be transferred.
      const blobs = r.blobs.map((b) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer ? b : b.slice()));
      transfer = ownedBuffers(blobs);
      reply = { id: job.id, ok: true, format: r.format, zones: r.zones, blobs, stats: r.stats };
    } catch (e) {
      reply = { id: job.id, ok: false, message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    }
    port.postMessage(reply, transfer);
  });
}
