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
 * Frame bodies are views into memory the reader never writes again (the chunk pushed, or the
 * reader's slab for a frame that spanned chunks), so they stay valid.
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

/**
 * Bytes of incomplete frames are gathered in slabs of this size (or one frame's size, if
 * larger): a frame that spans socket chunks is copied once, into the slab, and its body is a
 * view of it. A CopyData message spans two socket reads nearly every time (a 64 KiB message
 * in 64 KiB reads), so COPY FROM STDIN used to copy each one twice (its tail, then the join)
 * into two fresh buffers; measured on COPY of lineitem SF 0.1, the reader's copies and the
 * garbage collection they caused were ~10% of the server's time. A slab stays alive while any
 * body viewing it does, and the reader lets go of it whenever a chunk ends on a frame boundary
 * (a connection waiting for its reply holds none).
 */
const SLAB_BYTES = 1 << 20;
const EMPTY = Buffer.alloc(0);

export class FrameReader {
  /** Holds the incomplete frame at [base, base + held); bytes before base belong to frames already returned. */
  private slab: Buffer = EMPTY;
  private base = 0;
  private held = 0;
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
    return this.held;
  }

  /** The frames completed by `chunk`; throws a 08P01 PaxdError on a bad length. */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let off = this.held > 0 ? this.complete(chunk, frames) : 0;
    if (this.held > 0) return frames;
    // Whole frames inside the chunk are views of it: no copy.
    for (;;) {
      const cut = this.cut(chunk, off);
      if (!('frame' in cut)) break;
      frames.push(cut.frame);
      off = cut.end;
    }
    if (off < chunk.byteLength) this.complete(chunk.subarray(off), frames);
    else {
      // Nothing held: an idle connection keeps no slab (the bodies returned keep theirs alive).
      this.slab = EMPTY;
      this.base = 0;
    }
    return frames;
  }

  /**
   * Adds the start of `chunk` to the held frame, only as many bytes as it needs: its header
   * first (checked before any byte of the body is held), then its body. Pushes the frame when
   * complete and returns how many bytes of `chunk` it took.
   */
  private complete(chunk: Buffer, frames: Frame[]): number {
    let off = 0;
    for (;;) {
      const cut = this.cut(this.slab.subarray(0, this.base + this.held), this.base);
      if ('frame' in cut) {
        frames.push(cut.frame);
        this.base = cut.end;
        this.held = 0;
        return off;
      }
      if (off === chunk.byteLength) return off;
      this.reserve(cut.need);
      const take = Math.min(cut.need - this.held, chunk.byteLength - off);
      chunk.copy(this.slab, this.base + this.held, off, off + take);
      this.held += take;
      off += take;
    }
  }

  /** Room for `bytes` from base: a new slab (the held bytes moved to it) when this one is short. */
  private reserve(bytes: number): void {
    if (this.base + bytes <= this.slab.byteLength) return;
    const slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, bytes));
    this.slab.copy(slab, 0, this.base, this.base + this.held);
    this.slab = slab;
    this.base = 0;
  }

  private cut(buf: Buffer, off: number): Cut {
    return this.startup ? this.startupAt(buf, off) : this.messageAt(buf, off);
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
