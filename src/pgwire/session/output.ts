/**
 * A session's outgoing messages: gathered and written in chunks, paced to the client's reading
 * speed and to the event loop (other sessions must be served while a large result goes out),
 * and an Outcome written in the messages its protocol expects.
 */
import type { Socket } from 'node:net';
import type { ResultField } from '../../engine/index.js';
import { yieldDue, yieldNow } from '../../engine/index.js';
import type { TimeZone, Value } from '../../types/index.js';
import { FORMAT } from '../codec/constants.js';
import * as be from '../codec/backend.js';
import { Slab } from '../codec/row-encoder.js';
import { encodeRow, formatOf, type Outcome } from './outcome.js';

/** Output is gathered and written in chunks of about this many bytes. */
export const WRITE_CHUNK = 64 * 1024;

export class Output {
  private out: Buffer[] = [];
  private outBytes = 0;
  /** Where output is gathered (../codec/row-encoder.ts Slab). */
  private readonly slab = new Slab();

  /** `socket()`: the connection's socket now (TLS replaces it); `closed()`: nothing is written once true. */
  constructor(
    private readonly socket: () => Socket,
    private readonly closed: () => boolean,
  ) {}

  /** Bytes gathered and not yet written: 0 right after a chunk went out. */
  get pending(): number {
    return this.outBytes;
  }

  /** A buffer of the slab's, for encoders that write DataRows in place. */
  alloc(size: number): Buffer {
    return this.slab.alloc(size);
  }

  send(b: Buffer): void {
    this.out.push(b);
    this.outBytes += b.byteLength;
    if (this.outBytes >= WRITE_CHUNK) this.flush();
  }

  flush(): void {
    if (this.outBytes === 0 && this.out.length === 0) return;
    let b: Buffer;
    if (this.out.length === 1) b = this.out[0]!;
    else {
      b = this.slab.alloc(this.outBytes);
      let off = 0;
      for (const x of this.out) {
        b.set(x, off);
        off += x.byteLength;
      }
    }
    this.out = [];
    this.outBytes = 0;
    if (!this.closed()) this.socket().write(b);
  }

  /**
   * Waits while the socket's buffer is over its high-water mark (a slow reader); gives the
   * event loop back when a large result has kept it long enough (engine/context.ts), so that a
   * fast reader's million rows do not keep other sessions waiting.
   */
  async pace(): Promise<void> {
    if (yieldDue()) await yieldNow();
    const socket = this.socket();
    if (this.closed() || !socket.writableNeedDrain) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        socket.off('drain', done);
        socket.off('close', done);
        resolve();
      };
      socket.on('drain', done);
      socket.on('close', done);
    });
  }

  /** DataRows of `rows` [from, to) in `formats` (one per field), paced. */
  async rows(
    fields: readonly ResultField[],
    rows: readonly (readonly Value[])[],
    from: number,
    to: number,
    formats: readonly number[],
    zone: TimeZone,
  ): Promise<void> {
    for (let i = from; i < to; i++) {
      this.send(be.dataRow(encodeRow(fields, rows[i]!, formats, zone)));
      if (this.outBytes === 0) await this.pace();
    }
  }

  /**
   * An outcome's messages: RowDescription (when `describe`), DataRows [from, to), notices,
   * CommandComplete. `formats` as Bind's result formats: none (text), one for all, or one each.
   */
  async outcome(o: Outcome, from: number, to: number, describe: boolean, formats: readonly number[], zone: TimeZone): Promise<void> {
    if (o.copyOut !== undefined) {
      this.send(be.copyResponse('out', o.copyOut.columns, o.copyOut.binary ? FORMAT.binary : FORMAT.text));
      for (const line of o.copyOut.lines) {
        this.send(be.copyData(line));
        if (this.outBytes === 0) await this.pace();
      }
      this.send(be.copyDone());
    } else if (o.stream !== undefined) {
      // Text only: the runner streams only for the simple protocol, whose results are text.
      if (describe && o.fields !== null) this.send(o.description ?? be.rowDescription(o.fields));
      const n = await o.stream(async (chunk) => {
        if (chunk.byteLength < WRITE_CHUNK) {
          this.send(chunk);
          if (this.outBytes === 0) await this.pace();
          return;
        }
        // A large chunk goes to the socket as it is, not copied into a concatenation.
        this.flush();
        if (!this.closed()) this.socket().write(chunk);
        await this.pace();
      });
      this.send(be.commandComplete(`${o.tag} ${n}`));
      return;
    } else {
      const fields = o.fields ?? [];
      const f = o.binary === true ? [FORMAT.binary] : formats;
      const fmt = fields.map((_, i) => formatOf(f, i));
      if (describe && o.fields !== null) this.send(be.rowDescription(fields.map((x, i) => ({ ...x, format: fmt[i]! }))));
      await this.rows(fields, o.rows, from, to, fmt, zone);
    }
    if (from === 0) for (const m of o.messages) this.send(m);
    this.send(be.commandComplete(o.tag));
  }
}
