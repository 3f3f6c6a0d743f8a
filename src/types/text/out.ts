/**
 * Text output written as bytes: the output functions whose layouts are fixed (dates,
 * timestamps, uuid, bytea, integers) write ASCII into a Uint8Array, once, for both the
 * string formatters (formatText, through latin1) and the wire's row encoder, which writes the
 * same bytes straight into DataRow messages.
 */

/** A scratch buffer for the string formatters (one value at a time; never handed out). */
export const scratch: Buffer = Buffer.allocUnsafeSlow(64);

/** The string of the first n (ASCII) bytes of `b`. */
export function latin1(b: Buffer, n: number): string {
  return b.toString('latin1', 0, n);
}

/** Lower-case hex digits of every byte: HEX_DIGITS[2b] and HEX_DIGITS[2b + 1]. */
export const HEX_DIGITS: Uint8Array = (() => {
  const t = new Uint8Array(512);
  for (let i = 0; i < 256; i++) {
    const s = i.toString(16).padStart(2, '0');
    t[2 * i] = s.charCodeAt(0);
    t[2 * i + 1] = s.charCodeAt(1);
  }
  return t;
})();

/** Decimal digits of a non-negative safe integer. */
export function digitCount(v: number): number {
  if (v < 100000) return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
  if (v < 10000000000) return v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
  let d = 10;
  for (let x = Math.floor(v / 10000000000); x > 0; x = Math.floor(x / 10)) d++;
  return d;
}

/** Writes a non-negative safe integer's digits ending just before `end`. */
export function putDigits(buf: Uint8Array, end: number, v: number): void {
  while (v >= 4294967296) {
    const q = Math.floor(v / 10);
    buf[--end] = 48 + (v - q * 10);
    v = q;
  }
  let u = v >>> 0;
  do {
    const q = (u / 10) >>> 0;
    buf[--end] = 48 + (u - q * 10);
    u = q;
  } while (u > 0);
}

/**
 * int2out, int4out and int8out as a string: the digits putDigits writes (the wire's row encoder
 * writes the same bytes straight into DataRows). int8 values past 2^53 print through BigInt.
 */
export function formatInteger(v: number | bigint): string {
  let x: number;
  if (typeof v === 'bigint') {
    if (v > 9007199254740991n || v < -9007199254740991n) return v.toString();
    x = Number(v);
  } else x = v;
  const neg = x < 0;
  const m = neg ? -x : x;
  const len = digitCount(m) + (neg ? 1 : 0);
  if (neg) scratch[0] = 45; // '-'
  putDigits(scratch, len, m);
  return latin1(scratch, len);
}
