/**
 * A minimal protocol 3.0 client for tests: frontend message encoders and a reader of backend
 * messages over a socket, so tests can send exactly the bytes they mean (split, hostile,
 * pipelined) and assert exactly what comes back.
 */
import { connect, type Socket } from 'node:net';

function cstr(s: string): Buffer {
  return Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0])]);
}

function int16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

/** A regular frontend message: code, int32 length, body. */
export function msg(code: string, ...body: Buffer[]): Buffer {
  const b = Buffer.concat(body);
  return Buffer.concat([Buffer.from(code, 'latin1'), int32(b.byteLength + 4), b]);
}

/** A startup packet: int32 length, int32 code, body. */
export function startupPacket(code: number, body: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([int32(body.byteLength + 8), int32(code), body]);
}

export const fe = {
  ssl: () => startupPacket(80877103),
  gssenc: () => startupPacket(80877104),
  cancel: (pid: number, key: number) => startupPacket(80877102, Buffer.concat([int32(pid), int32(key)])),
  startup: (params: Record<string, string>, version = 0x30000) =>
    startupPacket(version, Buffer.concat([...Object.entries(params).flatMap(([k, v]) => [cstr(k), cstr(v)]), Buffer.from([0])])),
  query: (sql: string) => msg('Q', cstr(sql)),
  parse: (name: string, sql: string, types: number[] = []) => msg('P', cstr(name), cstr(sql), int16(types.length), ...types.map(int32)),
  bind: (portal: string, stmt: string, params: (string | null)[] = [], resultFormats: number[] = []) =>
    msg(
      'B',
      cstr(portal),
      cstr(stmt),
      int16(0),
      int16(params.length),
      ...params.flatMap((p) => (p === null ? [int32(-1)] : [int32(Buffer.byteLength(p)), Buffer.from(p)])),
      int16(resultFormats.length),
      ...resultFormats.map(int16),
    ),
  describe: (target: 'S' | 'P', name: string) => msg('D', Buffer.from(target), cstr(name)),
  execute: (portal: string, maxRows = 0) => msg('E', cstr(portal), int32(maxRows)),
  close: (target: 'S' | 'P', name: string) => msg('C', Buffer.from(target), cstr(name)),
  sync: () => msg('S'),
  flush: () => msg('H'),
  terminate: () => msg('X'),
  copyData: (data: string | Buffer) => msg('d', typeof data === 'string' ? Buffer.from(data, 'utf8') : data),
  copyDone: () => msg('c'),
  copyFail: (message: string) => msg('f', cstr(message)),
};

/** A backend message, decoded enough for assertions. */
export interface Reply {
  readonly code: string;
  readonly body: Buffer;
}

/** Splits backend bytes into messages (the single-byte answer to SSLRequest is not framed). */
export function splitReplies(b: Buffer): Reply[] {
  const out: Reply[] = [];
  let off = 0;
  while (off + 5 <= b.byteLength) {
    const len = b.readInt32BE(off + 1);
    out.push({ code: String.fromCharCode(b[off]!), body: b.subarray(off + 5, off + 1 + len) });
    off += 1 + len;
  }
  return out;
}

/** ErrorResponse/NoticeResponse fields by their type letter. */
export function errorFieldsOf(body: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let off = 0;
  while (body[off] !== 0 && off < body.byteLength) {
    const t = String.fromCharCode(body[off]!);
    const end = body.indexOf(0, off + 1);
    out[t] = body.toString('utf8', off + 1, end);
    off = end + 1;
  }
  return out;
}

/** DataRow values as strings (null for NULL). */
export function dataRowOf(body: Buffer): (string | null)[] {
  const n = body.readInt16BE(0);
  const out: (string | null)[] = [];
  let off = 2;
  for (let i = 0; i < n; i++) {
    const len = body.readInt32BE(off);
    off += 4;
    if (len < 0) out.push(null);
    else {
      out.push(body.toString('utf8', off, off + len));
      off += len;
    }
  }
  return out;
}

/** A raw connection that records every byte the server sends. */
export class RawClient {
  private received = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.received = Buffer.concat([this.received, d]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  static connect(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  /** A connection past its startup (the servers of the tests trust loopback), ready for queries. */
  static async session(port: number, params: Record<string, string> = { user: 'paxd', database: 'paxd' }): Promise<RawClient> {
    const c = await RawClient.connect(port);
    c.send(fe.startup(params));
    await c.untilReady();
    return c;
  }

  /** Sends one Query and returns its replies up to ReadyForQuery. */
  query(sql: string): Promise<Reply[]> {
    this.send(fe.query(sql));
    return this.untilReady();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  send(...bufs: Buffer[]): void {
    this.socket.write(Buffer.concat(bufs));
  }

  /** All bytes received so far. */
  get bytes(): Buffer {
    return this.received;
  }

  /** Waits until `done(bytes)` holds or the socket closes (fails after `ms`, 5 s by default). */
  async until(done: (b: Buffer) => boolean, ms = 5000): Promise<Buffer> {
    const deadline = Date.now() + ms;
    while (!done(this.received) && !this.closed) {
      if (Date.now() > deadline) throw new Error(`timed out; received ${this.received.toString('hex')}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 100);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return this.received;
  }

  /** Waits for the next `count` ReadyForQuery messages past what was consumed; returns and consumes the replies. */
  async untilReady(count = 1, ms = 5000): Promise<Reply[]> {
    await this.until((b) => splitReplies(b).filter((r) => r.code === 'Z').length >= count, ms);
    const replies = splitReplies(this.received);
    this.received = Buffer.alloc(0);
    return replies;
  }

  /** Waits for the server to close the connection. */
  async untilClosed(): Promise<void> {
    await this.until(() => false);
  }

  end(): void {
    this.socket.destroy();
  }
}
