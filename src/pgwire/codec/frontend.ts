/**
 * One parse function per frontend message body (the bytes after code and length, as
 * FrameReader cuts them). Strings are NUL-terminated UTF-8; every read is bounds-checked and a
 * message must be used up exactly, so a malformed message is a 08P01 error, never a crash.
 */
import { STARTUP, TARGET } from './constants.js';
import { protocolViolation, trailingBytes, truncatedMessage, unterminatedString } from './errors.js';

/** Sequential reads through (buffer, byteOffset): `body` may be a view into a larger pool. */
class BodyReader {
  private off = 0;
  constructor(
    private readonly what: string,
    private readonly body: Buffer,
  ) {}

  int16(): number {
    this.need(2);
    const v = this.body.readInt16BE(this.off);
    this.off += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.body.readInt32BE(this.off);
    this.off += 4;
    return v;
  }

  byte(): number {
    this.need(1);
    return this.body[this.off++]!;
  }

  cstring(): string {
    const end = this.body.indexOf(0, this.off);
    if (end < 0) throw unterminatedString(this.what, this.off);
    const s = this.body.toString('utf8', this.off, end);
    this.off = end + 1;
    return s;
  }

  /** `n` bytes, copied (the caller may keep them past the frame). */
  bytes(n: number): Buffer {
    this.need(n);
    const b = Buffer.from(this.body.subarray(this.off, this.off + n));
    this.off += n;
    return b;
  }


  end(): void {
    if (this.off !== this.body.byteLength) throw trailingBytes(this.what, this.off, this.body.byteLength);
  }

  private need(n: number): void {
    if (this.off + n > this.body.byteLength) throw truncatedMessage(this.what, this.off, this.body.byteLength);
  }
}

// ---- startup packets ----

export type StartupPacket =
  | { readonly kind: 'ssl' }
  | { readonly kind: 'gssenc' }
  | { readonly kind: 'cancel'; readonly processId: number; readonly secretKey: number }
  | { readonly kind: 'startup'; readonly major: number; readonly minor: number; readonly params: ReadonlyMap<string, string> };

/**
 *   StartupMessage body: (name\0 value\0)* \0      CancelRequest body: int32 pid, int32 secret
 */
export function parseStartup(code: number, body: Buffer): StartupPacket {
  switch (code) {
    case STARTUP.sslRequest:
      new BodyReader('SSLRequest', body).end();
      return { kind: 'ssl' };
    case STARTUP.gssEncRequest:
      new BodyReader('GSSENCRequest', body).end();
      return { kind: 'gssenc' };
    case STARTUP.cancelRequest: {
      const r = new BodyReader('CancelRequest', body);
      const processId = r.int32();
      const secretKey = r.int32();
      r.end();
      return { kind: 'cancel', processId, secretKey };
    }
    default: {
      const r = new BodyReader('StartupMessage', body);
      const params = new Map<string, string>();
      for (;;) {
        const name = r.cstring();
        if (name === '') break;
        params.set(name, r.cstring());
      }
      r.end();
      return { kind: 'startup', major: code >>> 16, minor: code & 0xffff, params };
    }
  }
}

// ---- authentication ----

/** PasswordMessage (md5, cleartext): `password\0`. */
export function parsePassword(body: Buffer): { readonly password: string } {
  const r = new BodyReader('PasswordMessage', body);
  const password = r.cstring();
  r.end();
  return { password };
}

/** SASLInitialResponse: `mechanism\0 int32 n (-1: none), bytes × n`. */
export function parseSaslInitial(body: Buffer): { readonly mechanism: string; readonly data: Buffer | null } {
  const r = new BodyReader('SASLInitialResponse', body);
  const mechanism = r.cstring();
  const n = r.int32();
  if (n < -1) throw protocolViolation(`invalid length ${n} of SASLInitialResponse data: expected -1 or at least 0`);
  const data = n === -1 ? null : r.bytes(n);
  r.end();
  return { mechanism, data };
}

// ---- simple query protocol ----

/** Query: `sql\0`. */
export function parseQuery(body: Buffer): { readonly sql: string } {
  const r = new BodyReader('Query', body);
  const sql = r.cstring();
  r.end();
  return { sql };
}

/** Terminate, Sync, Flush and CopyDone have empty bodies. */
export function parseEmpty(what: 'Terminate' | 'Sync' | 'Flush' | 'CopyDone', body: Buffer): void {
  new BodyReader(what, body).end();
}

// ---- extended query protocol ----

/** Parse: `name\0 sql\0 int16 n, int32 oid × n` (oid 0: infer). */
export function parseParse(body: Buffer): { readonly name: string; readonly sql: string; readonly paramTypes: readonly number[] } {
  const r = new BodyReader('Parse', body);
  const name = r.cstring();
  const sql = r.cstring();
  const n = r.int16();
  const paramTypes: number[] = [];
  for (let i = 0; i < n; i++) paramTypes.push(r.int32() >>> 0);
  r.end();
  return { name, sql, paramTypes };
}

export interface BindMessage {
  readonly portal: string;
  readonly statement: string;
  /** Format per parameter: empty = all text, one = that format for all. */
  readonly paramFormats: readonly number[];
  /** Each parameter's bytes, null for SQL NULL. */
  readonly params: readonly (Buffer | null)[];
  readonly resultFormats: readonly number[];
}

/**
 *   portal\0 statement\0 int16 nf, int16 format × nf, int16 np,
 *   (int32 len (-1 = NULL), bytes × len) × np, int16 nr, int16 format × nr
 */
export function parseBind(body: Buffer): BindMessage {
  const r = new BodyReader('Bind', body);
  const portal = r.cstring();
  const statement = r.cstring();
  const paramFormats = int16List(r);
  const np = r.int16();
  const params: (Buffer | null)[] = [];
  for (let i = 0; i < np; i++) {
    const len = r.int32();
    if (len < -1) throw protocolViolation(`invalid length ${len} of Bind parameter ${i + 1}: expected -1 (NULL) or at least 0`);
    params.push(len === -1 ? null : r.bytes(len));
  }
  const resultFormats = int16List(r);
  r.end();
  if (paramFormats.length > 1 && paramFormats.length !== np)
    throw protocolViolation(`bind message has ${paramFormats.length} parameter formats but ${np} parameters`);
  return { portal, statement, paramFormats, params, resultFormats };
}

/** Describe and Close: `'S'|'P' name\0`. */
export function parseTarget(what: 'Describe' | 'Close', body: Buffer): { readonly target: 'statement' | 'portal'; readonly name: string } {
  const r = new BodyReader(what, body);
  const t = r.byte();
  const name = r.cstring();
  r.end();
  if (t === TARGET.statement) return { target: 'statement', name };
  if (t === TARGET.portal) return { target: 'portal', name };
  throw protocolViolation(`invalid ${what.toUpperCase()} message subtype ${t}: expected 'S' or 'P'`);
}

/** Execute: `portal\0 int32 maxRows` (0 = no limit). */
export function parseExecute(body: Buffer): { readonly portal: string; readonly maxRows: number } {
  const r = new BodyReader('Execute', body);
  const portal = r.cstring();
  const maxRows = r.int32();
  r.end();
  return { portal, maxRows: maxRows < 0 ? 0 : maxRows };
}

function int16List(r: BodyReader): number[] {
  const n = r.int16();
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(r.int16());
  return out;
}
