/**
 * A table checkpoint (format v2, issue #20): the whole state of a table at snapshot N in a
 * compact binary form, `<table>/_snapshots/<N, 20 digits>.ckpt`, created exclusively after
 * commit N and never changed. It is an optimization: state N is also its base plus the deltas
 * up to N (./table-log.ts); a checkpoint only bounds how many deltas an open reads.
 *
 * Framed as ./frame.ts draws it (magic "PXCK", crc32 of header and payload); the payload:
 *
 *   offset  size   field
 *   0       4      H, byte length of the head, u32
 *   4       H      head: UTF-8 JSON of the SnapshotJson with every `files[i].groups`
 *                  replaced by its group count (a number): schema, options, ao segments,
 *                  ingested identities: small, whatever the number of groups
 *   4+H     …      the groups of all files, in file order, as typed columns (G groups):
 *
 *     G × u32   rows                          G × u32   live
 *     G × u8    group flags: 1 inline delete vector, 2 deletesPath, 4 blocks
 *     per group with flag 1: u32 n, n × u32 positions      (in group order)
 *     per group with flag 2: string                         (in group order)
 *     u32 C, then C column sections, one per fieldId that any group has statistics for:
 *       u32 fieldId
 *       G × u8    stat flags: 1 present, 2 nans, 4 min, 8 max, 16 sum,
 *                 32 minExact given, 64 maxExact given  (0: the group has no statistics)
 *       G × u8    exactness: 1 minExact, 2 maxExact (meaningful where given)
 *       u32 R; G × u32 record offsets into the R record bytes (0 where absent); the R bytes,
 *       per present group: u32 rows, u32 nulls, [u32 nans], [value min], [value max], [value sum]
 *     u32 B, then B block sections (ao_column), one per fieldId any group has a block for:
 *       u32 fieldId, G × u8 present, per present group: u32 seg, f64 offset, u32 length
 *
 *   string: u32 byte length, UTF-8 bytes
 *   value (StatJson): u8 tag: 1 string (then a string), 2 number (then f64), 3 true, 4 false
 *
 * Statistics are typed columns: a reader that wants only `live` (count(*)) or one column's
 * min/max reads one array. The decoder checks every length, count and tag against the bytes
 * left and the shape a SnapshotJson needs; any mismatch is corruption (XX001) naming the file
 * and the offset.
 */
import { corruption, type PaxdError } from '../types/index.js';
import { decodeFrameBytes, encodeFrameBytes, FRAME_HEADER_BYTES, type FrameKind } from './frame.js';
import { rememberFileCounts } from './file-counts.js';
import type { AoBlockJson, ColumnStatsJson, DataFileJson, GroupJson, SnapshotJson, StatJson } from './snapshot-types.js';

export const CHECKPOINT_MAGIC = new Uint8Array([0x50, 0x58, 0x43, 0x4b]); // "PXCK"
export const CHECKPOINT_FRAME: FrameKind = { noun: 'checkpoint', magic: CHECKPOINT_MAGIC };
export const CHECKPOINT_SUFFIX = '.ckpt';

const G_DELETED = 1;
const G_DELETES_PATH = 2;
const G_BLOCKS = 4;
const S_PRESENT = 1;
const S_NANS = 2;
const S_MIN = 4;
const S_MAX = 8;
const S_SUM = 16;
const S_MIN_EXACT_GIVEN = 32;
const S_MAX_EXACT_GIVEN = 64;
const TAG_STRING = 1;
const TAG_NUMBER = 2;
const TAG_TRUE = 3;
const TAG_FALSE = 4;

/** A growable little-endian byte buffer. */
export class Out {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  length = 0;
  private room(n: number): void {
    if (this.length + n <= this.buf.byteLength) return;
    let size = this.buf.byteLength * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): void {
    this.room(1);
    this.buf[this.length++] = v;
  }
  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }
  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }
  bytes(b: Uint8Array): void {
    this.room(b.byteLength);
    this.buf.set(b, this.length);
    this.length += b.byteLength;
  }
  str(s: string): void {
    const b = ENC.encode(s);
    this.u32(b.byteLength);
    this.bytes(b);
  }
  value(v: StatJson): void {
    if (typeof v === 'string') {
      this.u8(TAG_STRING);
      this.str(v);
    } else if (typeof v === 'number') {
      this.u8(TAG_NUMBER);
      this.f64(v);
    } else this.u8(v ? TAG_TRUE : TAG_FALSE);
  }
  done(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

export const ENC = new TextEncoder();
export const DEC = new TextDecoder('utf-8', { fatal: true });

export function encodeCheckpoint(s: SnapshotJson): Uint8Array {
  const head = { ...s, files: s.files.map((f) => ({ ...f, groups: f.groups.length })) };
  const out = new Out();
  const headBytes = ENC.encode(JSON.stringify(head));
  out.u32(headBytes.byteLength);
  out.bytes(headBytes);
  encodeGroups(out, s.files);
  return encodeFrameBytes(CHECKPOINT_FRAME, out.done());
}

/**
 * The groups of `files`, in file order, as the typed columns drawn above (everything after
 * the head): a checkpoint's, and a manifest's (./manifest.ts).
 */
export function encodeGroups(out: Out, files: readonly DataFileJson[]): void {
  const groups: GroupJson[] = [];
  for (const f of files) for (const g of f.groups) groups.push(g);
  for (const g of groups) out.u32(g.rows);
  for (const g of groups) out.u32(g.live);
  for (const g of groups) out.u8((g.deleted !== undefined ? G_DELETED : 0) | (g.deletesPath !== undefined ? G_DELETES_PATH : 0) | (g.blocks !== undefined ? G_BLOCKS : 0));
  for (const g of groups) {
    if (g.deleted === undefined) continue;
    out.u32(g.deleted.length);
    for (const p of g.deleted) out.u32(p);
  }
  for (const g of groups) if (g.deletesPath !== undefined) out.str(g.deletesPath);
  const statFields = fieldIdsOf(groups, (g) => g.columns);
  out.u32(statFields.length);
  for (const f of statFields) {
    out.u32(Number(f));
    const cols = groups.map((g) => g.columns[f]);
    for (const c of cols) out.u8(c === undefined ? 0 : statFlags(c));
    for (const c of cols) out.u8(c === undefined ? 0 : (c.minExact === true ? 1 : 0) | (c.maxExact === true ? 2 : 0));
    const heap = new Out();
    const at: number[] = [];
    for (const c of cols) {
      at.push(c === undefined ? 0 : heap.length);
      if (c === undefined) continue;
      heap.u32(c.rows);
      heap.u32(c.nulls);
      if (c.nans !== undefined) heap.u32(c.nans);
      if (c.min !== undefined) heap.value(c.min);
      if (c.max !== undefined) heap.value(c.max);
      if (c.sum !== undefined) heap.value(c.sum);
    }
    const records = heap.done();
    out.u32(records.byteLength);
    for (const a of at) out.u32(a);
    out.bytes(records);
  }
  const blockFields = fieldIdsOf(groups, (g) => g.blocks ?? {});
  out.u32(blockFields.length);
  for (const f of blockFields) {
    out.u32(Number(f));
    for (const g of groups) out.u8(g.blocks?.[f] !== undefined ? 1 : 0);
    for (const g of groups) {
      const b = g.blocks?.[f];
      if (b === undefined) continue;
      out.u32(b.seg);
      out.f64(b.offset);
      out.u32(b.length);
    }
  }
}

function statFlags(c: ColumnStatsJson): number {
  return (
    S_PRESENT |
    (c.nans !== undefined ? S_NANS : 0) |
    (c.min !== undefined ? S_MIN : 0) |
    (c.max !== undefined ? S_MAX : 0) |
    (c.sum !== undefined ? S_SUM : 0) |
    (c.minExact !== undefined ? S_MIN_EXACT_GIVEN : 0) |
    (c.maxExact !== undefined ? S_MAX_EXACT_GIVEN : 0)
  );
}

/** The field ids (as keys) any group has an entry for, ascending. */
function fieldIdsOf(groups: readonly GroupJson[], of: (g: GroupJson) => Record<string, unknown>): string[] {
  const ids = new Set<string>();
  let last: Record<string, unknown> | null = null;
  for (const g of groups) {
    const r = of(g);
    if (r === last) continue;
    last = r;
    for (const k of Object.keys(r)) ids.add(k);
  }
  return [...ids].sort((a, b) => Number(a) - Number(b));
}

/** A bounds-checked little-endian reader over a checkpoint's payload. */
/** A checkpoint's or manifest's head: a u32 length, then that many bytes of UTF-8 JSON; XX001 naming `what` when it is not. */
export function readJsonHead(r: In, path: string, what: string): unknown {
  const headLength = r.u32('the head length');
  try {
    return JSON.parse(DEC.decode(r.take(headLength, 'the head')));
  } catch (e) {
    if (e instanceof SyntaxError || e instanceof TypeError) throw corruption(path, FRAME_HEADER_BYTES + 4, `${what} ${path}: the head is not valid UTF-8 JSON`);
    throw e;
  }
}

export class In {
  private readonly view: DataView;
  at = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly path: string,
    /** File offset of bytes[0]. */
    private readonly origin = FRAME_HEADER_BYTES,
    /** What the file is called in messages. */
    readonly noun = 'checkpoint',
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  /** Offset in the file, for messages. */
  fileOffset(): number {
    return this.origin + this.at;
  }
  need(n: number, what: string): void {
    if (this.at + n > this.bytes.byteLength) throw this.bad(`${what} needs ${n} bytes at payload offset ${this.at}, ${this.bytes.byteLength - this.at} left`);
  }
  u8(what: string): number {
    this.need(1, what);
    return this.bytes[this.at++]!;
  }
  u32(what: string): number {
    this.need(4, what);
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }
  f64(what: string): number {
    this.need(8, what);
    const v = this.view.getFloat64(this.at, true);
    this.at += 8;
    return v;
  }
  /** n bytes as a view (the caller copies what it keeps). */
  take(n: number, what: string): Uint8Array {
    this.need(n, what);
    const b = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }
  str(what: string): string {
    const n = this.u32(what);
    try {
      return DEC.decode(this.take(n, what));
    } catch (e) {
      if (e instanceof TypeError) throw this.bad(`${what} is not valid UTF-8`);
      throw e;
    }
  }
  value(what: string): StatJson {
    const tag = this.u8(what);
    switch (tag) {
      case TAG_STRING:
        return this.str(what);
      case TAG_NUMBER:
        return this.f64(what);
      case TAG_TRUE:
        return true;
      case TAG_FALSE:
        return false;
      default:
        throw this.bad(`${what} has value tag ${tag}, expected 1..4`);
    }
  }
  bad(why: string): PaxdError {
    return corruption(this.path, this.fileOffset(), `${this.noun} ${this.path}: ${why}`);
  }
  /** The statistics record at `at` (bounds-checked as it is read: XX001 for a bad one). */
  record(at: number, f: number, ex: number, what: string): ColumnStatsJson {
    this.at = at;
    const s: ColumnStatsJson = { rows: this.u32(what), nulls: this.u32(what) };
    if (f & S_NANS) s.nans = this.u32(what);
    if (f & S_MIN) s.min = this.value(what);
    if (f & S_MAX) s.max = this.value(what);
    if (f & S_SUM) s.sum = this.value(what);
    if (f & S_MIN_EXACT_GIVEN) s.minExact = (ex & 1) !== 0;
    if (f & S_MAX_EXACT_GIVEN) s.maxExact = (ex & 2) !== 0;
    return s;
  }
}

interface Section {
  fieldId: string;
  flags: Uint8Array;
  ex: Uint8Array;
  /** Offset of each group's record in `heap`. */
  at: DataView;
  heap: In;
}

/**
 * Group `i` with its statistics decoded on first use: `columns` is an own, enumerable accessor
 * (an object literal's, cheap to make) that decodes them once and then becomes a plain value,
 * so spreading, JSON and deep equality see an ordinary GroupJson.
 */
function lazyGroup(rows: number, live: number, i: number, sections: readonly Section[]): GroupJson {
  return {
    rows,
    live,
    get columns(): Record<string, ColumnStatsJson> {
      const cols: Record<string, ColumnStatsJson> = {};
      for (const s of sections) {
        const f = s.flags[i]!;
        if (f !== 0) cols[s.fieldId] = s.heap.record(s.at.getUint32(4 * i, true), f, s.ex[i]!, `field ${s.fieldId}'s statistics of group ${i}`);
      }
      Object.defineProperty(this, 'columns', { value: cols, enumerable: true, configurable: true, writable: true });
      return cols;
    },
    set columns(v: Record<string, ColumnStatsJson>) {
      Object.defineProperty(this, 'columns', { value: v, enumerable: true, configurable: true, writable: true });
    },
  };
}

/**
 * The state in checkpoint `bytes` (the whole file at `path`), shape-checked by `check` (the
 * one shape check of a SnapshotJson, ./snapshot.ts); corruption (XX001) for anything else.
 */
export function decodeCheckpoint(bytes: Uint8Array, path: string, check: (v: unknown) => string | null): SnapshotJson {
  const payload = decodeFrameBytes(CHECKPOINT_FRAME, bytes, path);
  const r = new In(payload, path);
  const head = readJsonHead(r, path, 'checkpoint');
  if (typeof head !== 'object' || head === null || !Array.isArray((head as { files?: unknown }).files)) throw corruption(path, FRAME_HEADER_BYTES + 4, `checkpoint ${path}: the head has no files array`);
  const files = (head as { files: unknown[] }).files;
  const outFiles = decodeGroups(r, payload, path, files);
  const state = { ...(head as object), files: outFiles };
  // The head's shape; the groups are well-formed by construction (counts from u32 fields, checked records).
  const problem = check({ ...(head as object), files: files.map((f) => ({ ...(f as object), groups: [] })) });
  if (problem !== null) throw corruption(path, FRAME_HEADER_BYTES + 4, `checkpoint ${path}: ${problem}`);
  return state as SnapshotJson;
}

/**
 * The files whose entries (each with its group count in place of its groups) are `files`, with
 * their groups decoded from the rest of `r`'s payload (encodeGroups): groups built when a file's
 * `groups` is first read, statistics when a group's `columns` is. Corruption (XX001) for
 * counts the bytes cannot hold, bad flags or lengths, and trailing bytes.
 */
export function decodeGroups(r: In, payload: Uint8Array, path: string, files: readonly unknown[]): DataFileJson[] {
  const noun = r.noun;
  let total = 0;
  for (const [i, f] of files.entries()) {
    const n = (f as { groups?: unknown } | null)?.groups;
    if (!Number.isSafeInteger(n) || (n as number) < 0) throw r.bad(`files[${i}].groups is ${JSON.stringify(n)}, expected a group count`);
    total += n as number;
  }
  const headEnd = r.fileOffset();
  // Every group costs at least 9 bytes (rows, live, flags): a count the payload cannot hold is damage, not an allocation.
  if (total * 9 > payload.byteLength - r.at) throw r.bad(`the head counts ${total} groups, more than the ${payload.byteLength - r.at} bytes left can hold`);
  const rows = r.take(4 * total, 'group rows');
  const live = r.take(4 * total, 'group live counts');
  const rv = new DataView(rows.buffer, rows.byteOffset, rows.byteLength);
  const lv = new DataView(live.buffer, live.byteOffset, live.byteLength);
  const flags = r.take(total, 'group flags');
  for (let i = 0; i < total; i++) {
    if (flags[i]! & ~(G_DELETED | G_DELETES_PATH | G_BLOCKS)) throw corruption(path, headEnd + 8 * total + i, `${noun} ${path}: group ${i} has flags ${flags[i]}`);
  }
  const deleted = new Map<number, number[]>();
  const deletesPath = new Map<number, string>();
  for (let i = 0; i < total; i++) {
    if (!(flags[i]! & G_DELETED)) continue;
    const n = r.u32(`group ${i}'s delete vector length`);
    const b = r.take(4 * n, `group ${i}'s delete vector`);
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const out: number[] = new Array(n);
    for (let k = 0; k < n; k++) out[k] = v.getUint32(4 * k, true);
    deleted.set(i, out);
  }
  for (let i = 0; i < total; i++) if (flags[i]! & G_DELETES_PATH) deletesPath.set(i, r.str(`group ${i}'s deletesPath`));
  // Statistics are decoded per group on first use (`columns` is an accessor until then, each
  // record found by its offset): an open that needs only live counts (count(*)) or a few groups
  // never builds the rest. Section lengths and flags are checked here; a record is
  // bounds-checked as it is decoded (the crc already rules out damage; what it cannot rule out,
  // a writer's bug, is XX001 when the group's statistics are first read).
  const sections: Section[] = [];
  const statFields = r.u32('the statistics column count');
  for (let c = 0; c < statFields; c++) {
    const fieldId = String(r.u32('a statistics column field id'));
    const flags = r.take(total, `field ${fieldId}'s statistics flags`);
    const ex = r.take(total, `field ${fieldId}'s exactness flags`);
    const heapLength = r.u32(`field ${fieldId}'s record bytes`);
    const atBytes = r.take(4 * total, `field ${fieldId}'s record offsets`);
    const base = r.at;
    const heap = new In(r.take(heapLength, `field ${fieldId}'s records`), path, FRAME_HEADER_BYTES + base, r.noun);
    for (let i = 0; i < total; i++) {
      const f = flags[i]!;
      if (f !== 0 && (!(f & S_PRESENT) || f > 127)) throw r.bad(`field ${fieldId} of group ${i} has statistics flags ${f}`);
    }
    sections.push({ fieldId, flags, ex, at: new DataView(atBytes.buffer, atBytes.byteOffset, atBytes.byteLength), heap });
  }
  interface BlockSection {
    fieldId: string;
    present: Uint8Array;
    /** Payload offset of each present group's record (seg u32, offset f64, length u32). */
    at: Uint32Array;
  }
  const blocks: BlockSection[] = [];
  const blockFields = r.u32('the block column count');
  for (let c = 0; c < blockFields; c++) {
    const fieldId = String(r.u32('a block column field id'));
    const present = r.take(total, `field ${fieldId}'s block flags`);
    const at = new Uint32Array(total);
    for (let i = 0; i < total; i++) {
      if (present[i] === 0) continue;
      if (present[i] !== 1 || !(flags[i]! & G_BLOCKS)) throw r.bad(`field ${fieldId} of group ${i} has block flag ${present[i]}`);
      const what = `field ${fieldId}'s block of group ${i}`;
      at[i] = r.at;
      r.u32(what);
      const offset = r.f64(what);
      r.u32(what);
      if (!Number.isSafeInteger(offset) || offset < 0) throw r.bad(`${what} has offset ${offset}`);
    }
    blocks.push({ fieldId, present, at });
  }
  if (r.at !== payload.byteLength) throw r.bad(`${payload.byteLength - r.at} bytes after the last section`);
  const pv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  /** Group `i` as a GroupJson (statistics still decoded on first use). */
  const group = (i: number): GroupJson => {
    const g = lazyGroup(rv.getUint32(4 * i, true), lv.getUint32(4 * i, true), i, sections);
    const d = deleted.get(i);
    if (d !== undefined) g.deleted = d;
    const p = deletesPath.get(i);
    if (p !== undefined) g.deletesPath = p;
    if (flags[i]! & G_BLOCKS) {
      const b: Record<string, AoBlockJson> = {};
      for (const s of blocks) {
        if (s.present[i] === 0) continue;
        const at = s.at[i]!;
        b[s.fieldId] = { seg: pv.getUint32(at, true), offset: pv.getFloat64(at + 4, true), length: pv.getUint32(at + 12, true) };
      }
      g.blocks = b;
    }
    return g;
  };
  // A file's groups are built when `groups` is first read (an own, enumerable accessor that
  // then becomes a plain value, as lazyGroup's `columns`): an open builds one object per file,
  // and count(*) reads the counts registered for ./file-counts.ts instead.
  let next = 0;
  const outFiles = files.map((f) => {
    const first = next;
    const n = (f as { groups: number }).groups;
    next += n;
    let sum = 0;
    let empty = 0;
    for (let i = first; i < first + n; i++) {
      const l = lv.getUint32(4 * i, true);
      if (l === 0) empty++;
      else sum += l;
    }
    const file = { ...(f as object) } as DataFileJson;
    Object.defineProperty(file, 'groups', {
      enumerable: true,
      configurable: true,
      get(): GroupJson[] {
        const gs: GroupJson[] = new Array(n);
        for (let k = 0; k < n; k++) gs[k] = group(first + k);
        Object.defineProperty(this, 'groups', { value: gs, enumerable: true, configurable: true, writable: true });
        return gs;
      },
      set(v: GroupJson[]) {
        Object.defineProperty(this, 'groups', { value: v, enumerable: true, configurable: true, writable: true });
      },
    });
    rememberFileCounts(file, { groups: n, live: sum, empty });
    return file;
  });
  return outFiles;
}
