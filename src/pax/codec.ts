/**
 * Zone compression, in one place. A PAX zone is compressed as a whole with one codec:
 *
 *   none  the bytes as they are
 *   lz4   LZ4 block format with the decoded length prepended as u32 LE (lz4-napi/lz4_flex
 *         "size prepended" format); the length is checked against the footer before
 *         decompressing so a bad length never drives an allocation
 *   zstd  one Zstandard frame (with its content size)
 *
 * decompress() throws a plain Error on bad input; the reader turns it into a corruption error
 * that names the file and offset. zstd frames decompress into the memory the caller gives
 * (./zone-memory.ts: a scan's reused buffers) through ZSTD_decompressDCtx; lz4 blocks always
 * through lz4-napi, which has no output-buffer API and allocates each block's Buffer. (An LZ4
 * block decoder in JavaScript writing into reused buffers was measured instead: on lineitem's
 * zones, 60 to 180 LZ4 sequences per KB, it decoded 1 GB in 5 s against lz4-napi's 0.9 s including
 * its allocations, and made TPC-H Q1 and Q6 use more CPU, not less.)
 */
import { createRequire } from 'node:module';
import { unreachable } from '../types/index.js';
import { FRESH_MEMORY, Slot, type ZoneMemory } from './zone-memory.js';

// The native codecs load on first use, so that commands that touch no data (`paxd sql
// "select 1"`, `paxd tables`) do not pay for them.
const require = createRequire(import.meta.url);
let lz4: typeof import('lz4-napi') | null = null;
let zstd: typeof import('zstd-napi') | null = null;
let zstdCtx: ZstdDCtx | null = null;
const lz4Napi = () => (lz4 ??= require('lz4-napi') as typeof import('lz4-napi'));
const zstdNapi = () => (zstd ??= require('zstd-napi') as typeof import('zstd-napi'));
/** One decompression context per thread (decoding is synchronous). */
const zstdDCtx = () => (zstdCtx ??= new (require('zstd-napi/binding.js') as typeof import('zstd-napi/binding.js')).DCtx());
type ZstdDCtx = InstanceType<typeof import('zstd-napi/binding.js').DCtx>;

export type CodecName = 'lz4' | 'zstd' | 'none';

export const CODECS: readonly CodecName[] = ['lz4', 'zstd', 'none'];

const ZSTD_LEVEL = 3;

function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

export function compress(codec: CodecName, bytes: Uint8Array): Uint8Array {
  switch (codec) {
    case 'none':
      return bytes;
    case 'lz4':
      return lz4Napi().compressSync(asBuffer(bytes));
    case 'zstd':
      return zstdNapi().compress(bytes, { compressionLevel: ZSTD_LEVEL });
    default:
      return unreachable(codec);
  }
}

/**
 * Decompresses `bytes`, which must decode to exactly `decodedLength` bytes: zstd into `memory`'s
 * raw slot (fresh memory: wherever the codec library allocates), lz4 into a Buffer of its own.
 */
export function decompress(codec: CodecName, bytes: Uint8Array, decodedLength: number, memory: ZoneMemory = FRESH_MEMORY): Uint8Array {
  let out: Uint8Array;
  switch (codec) {
    case 'none':
      out = bytes;
      break;
    case 'lz4': {
      if (bytes.byteLength < 4) throw new Error(`lz4 block of ${bytes.byteLength} bytes has no length prefix`);
      const prefix = (bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16) | (bytes[3]! << 24)) >>> 0;
      if (prefix !== decodedLength) throw new Error(`lz4 length prefix ${prefix}, expected ${decodedLength}`);
      out = lz4Napi().uncompressSync(bytes);
      break;
    }
    case 'zstd':
      if (memory === FRESH_MEMORY) out = zstdNapi().decompress(bytes);
      else {
        out = memory.bytes(Slot.Raw, decodedLength);
        const n = zstdDCtx().decompress(out, bytes);
        if (n !== decodedLength) throw new Error(`decoded ${n} bytes, expected ${decodedLength}`);
      }
      break;
    default:
      return unreachable(codec);
  }
  if (out.byteLength !== decodedLength) throw new Error(`decoded ${out.byteLength} bytes, expected ${decodedLength}`);
  return out;
}
