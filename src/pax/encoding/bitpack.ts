/**
 * Bit-packing, the primitive under every v2 scheme (./for.ts, ./rle.ts, ./dict.ts): n unsigned
 * values of w bits (0 ≤ w ≤ 32) as one little-endian bit stream, value i in bits
 * [i·w, (i+1)·w), LSB first, in 32-bit little-endian words, the stream padded with zero bits
 * to a multiple of 8 bytes:
 *
 *   w = 3, values 5 1 7 2 …
 *   word 0 (LE)   bit 0         bit 3         bit 6         bit 9
 *                 [ 1 0 1 ]     [ 1 0 0 ]     [ 1 1 1 ]     [ 0 1 0 ] …
 *                   value 0       value 1       value 2       value 3
 *
 * A value may straddle two words. w = 0 stores nothing (every value is 0). Wider values (up
 * to 53 bits, ./for.ts) are two streams: the low 32 bits, then the high w − 32 bits.
 *
 * Unpacking reads only words inside the stream: the caller checks that the stream's bytes
 * (packedBytes) are present before calling, so bad widths or counts never read past a buffer.
 */

/** Bytes of a stream of n values of w bits: whole 64-bit units, so the next section stays aligned. */
export function packedBytes(n: number, w: number): number {
  return Math.ceil((n * w) / 64) * 8;
}

/** The fewest bits that hold every integer in [0, x] (x a non-negative safe integer). */
export function bitsFor(x: number): number {
  let w = 0;
  let p = 1;
  while (w < 64 && x >= p) {
    w++;
    p *= 2;
  }
  return w;
}

/**
 * Packs src[0..n) (each < 2^w) at out[at…] (32-bit words; `out` zeroed by the caller over the
 * stream's bytes, as the zone buffers are).
 */
export function pack(src: Uint32Array, n: number, w: number, out: Uint32Array, at: number): void {
  if (w === 0) return;
  let word = at;
  let off = 0;
  let acc = 0;
  for (let i = 0; i < n; i++) {
    const v = src[i]!;
    acc |= v << off;
    off += w;
    if (off >= 32) {
      out[word++] = acc;
      off -= 32;
      // The bits of v that did not fit (none when off = 0; `v >>> 32` would be v in JS).
      acc = off === 0 ? 0 : v >>> (w - off);
    }
  }
  if (off > 0) out[word] = acc;
}

/** Unpacks n values of w bits from words[at…] into out[0..n). The stream must be present in `words`. */
export function unpack(words: Uint32Array, at: number, n: number, w: number, out: Uint32Array): void {
  if (w === 0) {
    out.fill(0, 0, n);
    return;
  }
  if (w === 32) {
    out.set(words.subarray(at, at + n));
    return;
  }
  // Whole blocks of 32 values (exactly w words each) by the width's generated unpacker, the
  // rest value by value.
  const blocks = n >>> 5;
  if (blocks > 0) unpackerFor(w)(words, at, blocks, out);
  const done = blocks << 5;
  if (done === n) return;
  const mask = (1 << w) - 1;
  let word = at + blocks * w;
  let off = 0;
  let cur = words[word]!;
  for (let i = done; i < n; i++) {
    let v = cur >>> off;
    off += w;
    if (off >= 32) {
      off -= 32;
      cur = word + 1 < words.length ? words[++word]! : 0;
      if (off > 0) v |= cur << (w - off);
    }
    out[i] = v & mask;
  }
}

type Unpacker = (words: Uint32Array, at: number, blocks: number, out: Uint32Array) => void;

const unpackers: (Unpacker | undefined)[] = [];

/**
 * A straight-line unpacker of blocks of 32 w-bit values, shifts and masks as constants
 * (DESIGN.md "Hot paths": generated code where it pays; about 5× the per-value loop). Built
 * once per width from this function's own arithmetic, never from data.
 */
function unpackerFor(w: number): Unpacker {
  let f = unpackers[w];
  if (f !== undefined) return f;
  f = generated<Unpacker>(`unpack${w}`, 'words, at, blocks, out', blockLoop(w, 32, (j, e) => `out[oi + ${j}] = ${e};`));
  unpackers[w] = f;
  return f;
}

/**
 * The source of a loop over `blocks` blocks of 32 w-bit values read from words[at…]: per value
 * j of a block, `store(j, e)` with e the expression of its value; the output index `oi`
 * advances by `step` per block.
 */
function blockLoop(w: number, step: number, store: (j: number, e: string) => string): string {
  const mask = w === 32 ? 0xffffffff : (1 << w) - 1;
  const lines: string[] = [];
  for (let k = 0; k < w; k++) lines.push(`const w${k} = words[wi + ${k}];`);
  for (let j = 0; j < 32; j++) {
    const bit = j * w;
    const k = bit >>> 5;
    const off = bit & 31;
    let e = off === 0 ? `w${k}` : `(w${k} >>> ${off})`;
    if (off + w > 32) e = `(${e} | (w${k + 1} << ${32 - off}))`;
    if (off + w !== 32) e = `(${e} & ${mask})`;
    lines.push(store(j, e));
  }
  return `let wi = at; let oi = 0;\nfor (let b = 0; b < blocks; b++) {\n${lines.join('\n')}\nwi += ${w}; oi += ${step};\n}`;
}

/**
 * Where unpackTo() puts each value d (0 ≤ d < 2^w) with base `ref` and multiplier k ≥ 1, in one
 * pass (frame of reference and widening fused with the unpacking; ./for.ts picks the target
 * whose arithmetic is exact for the zone's range, so the stores need no checks):
 *
 *   u16        out[i] = d (ref and k ignored)           Uint16Array (dictionary codes)
 *   i16, i32   out[i] = ref + d·k                       Int16Array / Int32Array
 *   lo2, lo4   out[s·i] = ref + d·k, 0 ≤ value < 2^32   int64 / decimal128 as int32 words, stride
 *              s; the high words are left as they are (the caller zeroes them)
 *   sg2, sg4   out[s·i] = v, out[s·i + 1…s−1] = v >> 31  −2^31 ≤ value < 2^31: sign-extended
 */
export type UnpackTarget = 'u16' | 'i16' | 'i32' | 'lo2' | 'lo4' | 'sg2' | 'sg4';

type TargetUnpacker = (words: Uint32Array, at: number, blocks: number, out: Uint16Array | Int16Array | Int32Array, ref: number, k: number) => void;

/** Per target, per width: built on first use (each its own function, so each store site sees one array class). */
const targetUnpackers = new Map<UnpackTarget, (TargetUnpacker | undefined)[]>();

const STRIDE: Record<UnpackTarget, number> = { u16: 1, i16: 1, i32: 1, lo2: 2, lo4: 4, sg2: 2, sg4: 4 };

function targetStore(t: UnpackTarget, j: number, e: string): string {
  const s = STRIDE[t];
  switch (t) {
    case 'u16':
      return `out[oi + ${j}] = ${e};`;
    case 'i16':
    case 'i32':
    case 'lo2':
    case 'lo4':
      return `out[oi + ${s * j}] = ref + ${e} * k;`;
    case 'sg2':
    case 'sg4': {
      const hs: string[] = [];
      for (let x = 1; x < s; x++) hs.push(`out[oi + ${s * j + x}] = v${j} >> 31;`);
      return `const v${j} = ref + ${e} * k; out[oi + ${s * j}] = v${j}; ${hs.join(' ')}`;
    }
    default: {
      const never: never = t;
      return never;
    }
  }
}

function targetUnpacker(w: number, t: UnpackTarget): TargetUnpacker {
  let byWidth = targetUnpackers.get(t);
  if (byWidth === undefined) targetUnpackers.set(t, (byWidth = []));
  let f = byWidth[w];
  if (f !== undefined) return f;
  f = generated<TargetUnpacker>(`unpack${w}_${t}`, 'words, at, blocks, out, ref, k', blockLoop(w, 32 * STRIDE[t], (j, e) => targetStore(t, j, e)));
  byWidth[w] = f;
  return f;
}

/**
 * Unpacks n values of w bits (w ≤ 32) from words[at…] and stores each as `target` says
 * (ref + d·k into out). The stream must be present in `words`; the caller has checked that every
 * value the zone's range allows fits the target exactly.
 */
export function unpackTo(words: Uint32Array, at: number, n: number, w: number, target: UnpackTarget, out: Uint16Array | Int16Array | Int32Array, ref: number, k: number): void {
  const blocks = w === 0 ? 0 : n >>> 5;
  if (blocks > 0) targetUnpacker(w, target)(words, at, blocks, out, ref, k);
  const done = blocks << 5;
  if (done === n) return;
  // The rest (under 32 values, or all of a zero-width stream) through the generic unpacker.
  const rest = scratchU32(1, n - done);
  unpack(words, at + blocks * w, n - done, w, rest);
  storeRest(target, rest, n - done, out, done, ref, k);
}

function storeRest(t: UnpackTarget, d: Uint32Array, count: number, out: Uint16Array | Int16Array | Int32Array, from: number, ref: number, k: number): void {
  const s = STRIDE[t];
  const signed = t === 'sg2' || t === 'sg4';
  for (let i = 0, o = from * s; i < count; i++, o += s) {
    const v = t === 'u16' ? d[i]! : ref + d[i]! * k;
    out[o] = v;
    if (signed) for (let x = 1; x < s; x++) out[o + x] = v >> 31;
  }
}

/**
 * A function generated from `body` (source this module builds from its own arithmetic, never
 * from data), named so that profiles tell the generated loops apart.
 */
export function generated<F>(name: string, params: string, body: string): F {
  return new Function(`return function ${name}(${params}) {\n${body}\n};`)() as F;
}

/**
 * 32-bit words over bytes [at, at + bytes) of `buf`: a view when aligned, else a copy (zones
 * stored uncompressed sit at any offset of a chunk's read buffer).
 */
export function wordsAt(buf: Uint8Array, at: number, bytes: number): Uint32Array {
  const off = buf.byteOffset + at;
  if ((off & 3) === 0) return new Uint32Array(buf.buffer, off, bytes >>> 2);
  const copy = buf.slice(at, at + bytes);
  return new Uint32Array(copy.buffer, 0, bytes >>> 2);
}

/** Grow-only scratch arrays that decoders unpack into (decoding is synchronous: one set per thread). */
const scratch: Uint32Array[] = [new Uint32Array(1 << 14), new Uint32Array(1 << 14)];

/** Scratch array k (0 or 1) of at least n entries; its contents are unspecified. */
export function scratchU32(k: 0 | 1, n: number): Uint32Array {
  let s = scratch[k]!;
  if (s.length < n) {
    let size = s.length;
    while (size < n) size *= 2;
    s = new Uint32Array(size);
    scratch[k] = s;
  }
  return s;
}
