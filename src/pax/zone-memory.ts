/**
 * Where zone decoders put what they produce. A scan decodes thousands of zones whose columns
 * it drops as soon as the next zone of the same column is decoded; a fresh 64–256 KB typed
 * array (or native Buffer) per zone made every scan pay allocation, fresh-page faults and
 * external-memory Mark-Compacts, and made its speed depend on the allocator's state rather
 * than on the code. So decoders take a ZoneMemory:
 *
 *   FRESH_MEMORY   a new array per request: columns live as long as anyone holds them (every
 *                  reader that may keep a batch: the interpreter, exports, compaction, check)
 *   ZoneBuffers    one grow-only buffer per slot, reused by every zone decoded into it: a column
 *                  decoded into it is valid until the next zone is decoded into the same
 *                  buffers (the scan's `reuseBuffers` contract, src/scan/reader.ts)
 *
 * A request returns exactly the bytes asked for (a view at offset 0 of its buffer, so 8-byte
 * aligned) and its contents are unspecified: decoders write every element they return, so a
 * short zone never shows bytes of a longer one decoded before it.
 */

/** What one zone decode may ask for; each slot at most once per zone. */
export const enum Slot {
  /** Decompressed zone bytes (lz4, zstd output). */
  Raw = 0,
  /** Per-row values (frame of reference, run length), or materialized bytes of var-width rows. */
  Values = 1,
  /** Per-row int32 offsets of var-width rows. */
  Offsets = 2,
  /** Per-row dictionary codes. */
  Codes = 3,
}

const SLOTS = 4;

export interface ZoneMemory {
  bytes(slot: Slot, n: number): Uint8Array;
  int32(slot: Slot, n: number): Int32Array;
  uint16(slot: Slot, n: number): Uint16Array;
}

/**
 * New memory per request, not zero-filled: decoders write every element they return (the
 * poisoned-buffer tests of test/pax/zone-memory.test.ts hold them to it), so zeroing each
 * zone's arrays first was a second pass over every decoded byte.
 */
export const FRESH_MEMORY: ZoneMemory = {
  bytes: (_slot, n) => new Uint8Array(fresh(n), 0, n),
  int32: (_slot, n) => new Int32Array(fresh(4 * n), 0, n),
  uint16: (_slot, n) => new Uint16Array(fresh(2 * n), 0, n),
};

/** An ArrayBuffer of its own (never a pooled slab) of n bytes, contents unspecified. */
function fresh(n: number): ArrayBuffer {
  return Buffer.allocUnsafeSlow(n).buffer as ArrayBuffer;
}

/** Buffers grow in steps of this many bytes (and by half their size), so a few zones size them. */
const GROW_STEP = 64 * 1024;

/**
 * Reused decode buffers of one column of one scan. `epoch` counts the zones decoded into them:
 * a reader that caches a decoded column keeps the epoch it was decoded at and decodes again once
 * the buffers have moved on.
 */
export class ZoneBuffers implements ZoneMemory {
  epoch = 0;
  private readonly buffers: (ArrayBuffer | null)[] = new Array<ArrayBuffer | null>(SLOTS).fill(null);

  /** Starts a zone: every column decoded into these buffers before is now stale. */
  next(): number {
    return ++this.epoch;
  }

  bytes(slot: Slot, n: number): Uint8Array {
    return new Uint8Array(this.buffer(slot, n), 0, n);
  }

  int32(slot: Slot, n: number): Int32Array {
    return new Int32Array(this.buffer(slot, 4 * n), 0, n);
  }

  uint16(slot: Slot, n: number): Uint16Array {
    return new Uint16Array(this.buffer(slot, 2 * n), 0, n);
  }

  /** Bytes held, for tests and memory accounting. */
  get capacity(): number {
    let sum = 0;
    for (const b of this.buffers) sum += b?.byteLength ?? 0;
    return sum;
  }

  private buffer(slot: Slot, bytes: number): ArrayBuffer {
    const b = this.buffers[slot];
    if (b !== null && b !== undefined && b.byteLength >= bytes) return b;
    const size = Math.ceil(Math.max(bytes, (b?.byteLength ?? 0) * 1.5) / GROW_STEP) * GROW_STEP;
    const fresh = new ArrayBuffer(size);
    this.buffers[slot] = fresh;
    return fresh;
  }
}
