/**
 * Cuts a byte stream from a client into frames: first startup packets, then regular messages.
 *
 *   startup packet                        regular message
 *   offset size                           offset size
 *   0      4    int32 length (incl. self) 0      1    code ('Q', 'P', …)
 *   4      4    int32 code (version or    1      4    int32 length (incl. self, not code)
 *               request: SSL, cancel…)    5      n-4  body
 *   8      n-8  body
 *
 * A declared length is checked as soon as its header is complete, before a byte of the body
 * is buffered, so a hostile 2 GB length costs nothing (docs/WIRE.md). The reader leaves startup
 * mode after a protocol 3.x StartupMessage; SSLRequest and GSSENCRequest keep it there.
 *
 *   const r = new FrameReader();
 *   r.push(Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]))   // [{ kind: 'startup', code: 80877103, body: <> }]
 *
 * Frame bodies are views into memory the reader never writes again, so they stay valid.
 */
import { LIMITS, MESSAGE_HEADER, STARTUP, STARTUP_HEADER, FRONTEND } from './constants.js';
import { invalidLength } from './errors.js';

export type Frame =
  | { readonly kind: 'startup'; readonly code: number; readonly body: Buffer }
  | { readonly kind: 'message'; readonly code: number; readonly body: Buffer };

export interface FrameReaderOptions {
  /** The largest regular message accepted, length field included (default 1 GB - 1). */
  readonly maxMessageSize?: number;
}

/** A complete frame ending at `end`, or (end -1) how many bytes from its start it needs. */
type Cut = { readonly frame: Frame; readonly end: number } | { readonly end: -1; readonly need: number };

/** Messages PostgreSQL caps at PQ_SMALL_MESSAGE_LIMIT whatever the configured maximum. */
const SMALL_MESSAGES: ReadonlySet<number> = new Set([
  FRONTEND.sync,
  FRONTEND.flush,
  FRONTEND.execute,
  FRONTEND.close,
  FRONTEND.describe,
  FRONTEND.terminate,
]);

export class FrameReader {
  /** Chunks of an incomplete frame, joined once `need` bytes have arrived (no quadratic copying). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private need = 0;
  private startup = true;
  private readonly maxMessageSize: number;
  /** The cap of a 'p' message: a password by default, lowered while a SASL exchange runs. */
  passwordLimit: number = LIMITS.password;

  constructor(options: FrameReaderOptions = {}) {
    this.maxMessageSize = options.maxMessageSize ?? LIMITS.defaultMaxMessage;
  }

  /** True until a protocol 3.x StartupMessage has been read. */
  get inStartup(): boolean {
    return this.startup;
  }

  /** Bytes held for an incomplete frame (never more than one frame's allowed size). */
  get buffered(): number {
    return this.pendingBytes;
  }

  /** The frames completed by `chunk`; throws a 08P01 PaxdError on a bad length. */
  push(chunk: Buffer): Frame[] {
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.byteLength;
      if (this.pendingBytes < this.need) return [];
      chunk = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const frames: Frame[] = [];
    let off = 0;
    for (;;) {
      const frame = this.startup ? this.startupAt(chunk, off) : this.messageAt(chunk, off);
      if (!('frame' in frame)) {
        this.need = frame.need;
        break;
      }
      frames.push(frame.frame);
      off = frame.end;
    }
    if (off < chunk.byteLength) {
      // Copy the tail so a small leftover does not pin a large chunk.
      const tail = Buffer.from(chunk.subarray(off));
      this.pending = [tail];
      this.pendingBytes = tail.byteLength;
    }
    return frames;
  }

  private startupAt(buf: Buffer, off: number): Cut {
    if (buf.byteLength - off < STARTUP_HEADER) return { end: -1, need: STARTUP_HEADER };
    const length = buf.readInt32BE(off);
    if (length < LIMITS.minStartupPacket || length > LIMITS.startupPacket)
      throw invalidLength('startup packet', length, LIMITS.minStartupPacket, LIMITS.startupPacket);
    if (buf.byteLength - off < length) return { end: -1, need: length };
    const code = buf.readInt32BE(off + STARTUP_HEADER);
    if (code >>> 16 === STARTUP.protocol30 >>> 16) this.startup = false;
    return { frame: { kind: 'startup', code, body: buf.subarray(off + 8, off + length) }, end: off + length };
  }

  private messageAt(buf: Buffer, off: number): Cut {
    if (buf.byteLength - off < MESSAGE_HEADER) return { end: -1, need: MESSAGE_HEADER };
    const code = buf[off]!;
    const length = buf.readInt32BE(off + 1);
    const max = SMALL_MESSAGES.has(code) ? LIMITS.smallMessage : code === FRONTEND.password ? this.passwordLimit : this.maxMessageSize;
    if (length < 4 || length > max) throw invalidLength(`message '${String.fromCharCode(code)}'`, length, 4, max);
    if (buf.byteLength - off < 1 + length) return { end: -1, need: 1 + length };
    return { frame: { kind: 'message', code, body: buf.subarray(off + MESSAGE_HEADER, off + 1 + length) }, end: off + 1 + length };
  }
}
