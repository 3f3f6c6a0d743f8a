/**
 * A parser thread (./parse-thread.ts): runs the input readers of ./formats.ts — the very code a
 * load on the calling thread runs — over bytes the main thread hands over, and sends each batch
 * back with its buffers transferred. One thread parses any number of loads at a time, each
 * under its id; each load pulls its input a chunk at a time and has at most BATCH_CREDITS
 * batches on their way to the main thread, so memory stays bounded by the consumer's pace.
 */
import { parentPort } from 'node:worker_threads';
import { type Batch, timeZoneSetting } from '../types/index.js';
import { openFormat, streamInput } from './readers.js';
import type { FormatOptions } from './formats.js';
import { BATCH_CREDITS, type ParseOpen, type ParseReply, type ParseRequest, toThreadError } from './parse-protocol.js';

/** A batch's buffers as exact copies that own their memory, and the list to transfer them with (the copy runs on this thread, not the main one). */
function owned(b: Batch): { batch: Batch; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const own = <T extends ArrayBufferView | null>(a: T): T => {
    if (a === null) return a;
    // A copy, never a view (Buffer#slice is one): what is transferred must be this batch's alone.
    const bytes = new Uint8Array(a.byteLength);
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    transfer.push(bytes.buffer);
    if (a instanceof Uint8Array) return bytes as unknown as T;
    const Typed = a.constructor as new (b: ArrayBuffer) => T;
    return new Typed(bytes.buffer);
  };
  const columns = b.columns.map((c) => ({ ...c, validity: own(c.validity), values: own(c.values), offsets: own(c.offsets), data: own(c.data) }));
  return { batch: { length: b.length, columns, selection: own(b.selection) }, transfer };
}

interface Load {
  chunk: ((bytes: Uint8Array | null) => void) | null;
  credits: number;
  credited: (() => void) | null;
  closed: boolean;
}

if (parentPort !== null) {
  const port = parentPort;
  const loads = new Map<number, Load>();
  const send = (m: ParseReply, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

  async function run(m: ParseOpen): Promise<void> {
    const load: Load = { chunk: null, credits: BATCH_CREDITS, credited: null, closed: false };
    loads.set(m.id, load);
    async function* pulled(): AsyncGenerator<Uint8Array> {
      for (;;) {
        const bytes = await new Promise<Uint8Array | null>((resolve) => {
          load.chunk = resolve;
          send({ t: 'pull', id: m.id });
        });
        if (bytes === null) return;
        yield bytes;
      }
    }
    let rejected = 0;
    try {
      const zone = m.opts.timeZone === undefined ? undefined : (timeZoneSetting(m.opts.timeZone) ?? undefined);
      const { timeZone: _zoneName, ...rest } = m.opts;
      const opts: FormatOptions = {
        ...rest,
        ...(zone !== undefined ? { timeZone: zone } : {}),
        onReject: (reject) => {
          rejected++;
          send({ t: 'reject', id: m.id, reject });
        },
      };
      const reader = openFormat(m.format, streamInput(m.name, pulled(), null), m.fields, opts);
      for await (const b of reader) {
        if (load.closed) return;
        while (load.credits === 0) await new Promise<void>((resolve) => (load.credited = resolve));
        if (load.closed) return;
        load.credits--;
        const { batch, transfer } = owned(b);
        send({ t: 'batch', id: m.id, batch }, transfer);
      }
      send({ t: 'end', id: m.id, rowsRead: reader.rowsRead, rowsRejected: rejected });
    } catch (e) {
      if (!load.closed) send({ t: 'error', id: m.id, error: toThreadError(e) });
    } finally {
      loads.delete(m.id);
    }
  }

  port.on('message', (m: ParseRequest) => {
    if (m.t === 'open') {
      void run(m);
      return;
    }
    const load = loads.get(m.id);
    if (load === undefined) return;
    switch (m.t) {
      case 'chunk': {
        const c = load.chunk;
        load.chunk = null;
        c?.(m.bytes);
        break;
      }
      case 'credit': {
        load.credits++;
        const c = load.credited;
        load.credited = null;
        c?.();
        break;
      }
      case 'close': {
        // The main thread gave up on the load (an error there): end its reader where it waits.
        load.closed = true;
        load.chunk?.(null);
        load.credited?.();
        break;
      }
    }
  });
}
