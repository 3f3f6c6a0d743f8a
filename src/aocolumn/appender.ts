/**
 * Appends rows to an ao_column table: each column's blocks go to the end of its own segment,
 * `<table>/ao/<fieldId>/<segno>.seg` (docs/FORMAT.md "ao_column segments").
 *
 * On a store that can append (local disk) the appender claims (./claim.ts) the newest
 * segment set of the base snapshot that has room, opens each column's segment at its
 * committed logical EOF — truncating whatever a crashed append left past it — and writes only
 * new blocks: no existing byte is rewritten, so an append of n rows writes O(n) bytes. When
 * every set is busy (another live writer) or full, or the store cannot append (S3), it
 * claims a new segment number and creates new segment objects; compaction merges them later.
 *
 * Rows come in groups (the sink's row groups); a group is cut into blocks of `blockRows`
 * rows at the same row boundaries in every column, and each block row range becomes one
 * GroupJson (a unit for the scan, with exact statistics and each column's block). The groups
 * of one `finish()` form a stripe: one DataFileJson entry with `layout: 'ao_column'`.
 *
 *   const a = await AoAppender.open(store, 't', fields, options, base);
 *   await a.writeGroupFrom(rows, (c) => columns[c]);
 *   const stripe = await a.finish('ao/0000018f…');
 *   await a.close();                                   // fsync every segment written
 *   commit(store, 't', (b) => ({ ...b, files: [...b.files, stripe], ao: a.segmentsFor(b) }));
 *   await a.release();
 */
import { type Column, columnBytes, assert, PaxdError, SQLSTATE, isPaxdError, type Field, typeName } from '../types/index.js';
import { type AoJson, type AoSegmentJson, type DataFileJson, type GroupJson, type SnapshotJson, type TableOptionsJson, type ObjectStore, type ObjectWriter, latestSnapshot, CLAIMS_DIR, parseClaimPath, releaseClaim, tryClaim, type Claim } from '../storage/index.js';
import { encodeChunk, type EncodedChunk, encodePool } from '../pax/index.js';
import { BLOCK_HEADER_BYTES, MAX_BLOCK_ROWS, encodeBlockHeader, segmentPath } from './block.js';

/** A segment set stops taking appends once one of its segments holds this many bytes. */
export const MAX_SEGMENT_BYTES = 1 << 30;
/** Committed segment sets tried (newest first) before a new one is started. */
const REUSE_CANDIDATES = 2;
/** Claims that turn out stale (see AoAppender.open) before giving up with 40001. */
const MAX_CLAIM_ATTEMPTS = 100;

/** Rows per block for a table's options: its zone rows, at most 16,384. */
export function blockRowsOf(options: TableOptionsJson): number {
  return Math.min(options.zoneRows, MAX_BLOCK_ROWS);
}

export interface AoAppenderOptions {
  /** Never append to a committed segment set (compaction; tests). */
  freshSegments?: boolean;
}

export class AoAppender {
  private readonly writers = new Map<number, ObjectWriter>();
  private readonly eof: Record<string, number> = {};
  private groups: GroupJson[] = [];
  private stripeBytes = 0;
  private state: 'open' | 'closed' | 'aborted' = 'open';
  private busy = false;

  private constructor(
    private readonly store: ObjectStore,
    private readonly table: string,
    private readonly fields: readonly Field[],
    private readonly codec: TableOptionsJson['codec'],
    private readonly blockRows: number,
    private readonly claim: Claim,
    /** The committed set appended to, or null for a new set. */
    private readonly base: AoSegmentJson | null,
  ) {}

  /**
   * Claims a segment set of `base` (the latest snapshot) or a new one. A claim won on a stale
   * base is worthless — the set may have been committed past since (its holder committed and
   * released the claim), or a "new" number taken by a commit — so after winning, the latest
   * snapshot is read again and the claim kept only if the set is still at the claimed
   * generation (absent, for a new set). Only then is a byte written or truncated.
   */
  static async open(store: ObjectStore, table: string, fields: readonly Field[], options: TableOptionsJson, base: SnapshotJson, opts: AoAppenderOptions = {}): Promise<AoAppender> {
    const make = (c: Claim, s: AoSegmentJson | null) => new AoAppender(store, table, fields, options.codec, blockRowsOf(options), c, s);
    let segments = base.ao?.segments ?? [];
    for (let attempt = 1; ; attempt++) {
      const won = await claimOne(store, table, segments, opts);
      const latest = await latestOrNull(store, table);
      const now = (latest?.ao?.segments ?? []).find((s) => s.segno === won.claim.segno);
      if ((now?.gen ?? 0) === (won.set?.gen ?? 0) && (now === undefined) === (won.set === null)) return make(won.claim, now ?? null);
      await releaseClaim(store, won.claim);
      if (attempt >= MAX_CLAIM_ATTEMPTS)
        throw new PaxdError('conflict', SQLSTATE.serialization_failure, `could not append to relation "${table}": no segment set could be claimed in ${attempt} attempts`);
      segments = latest?.ao?.segments ?? [];
    }
  }

  get segno(): number {
    return this.claim.segno;
  }

  /** Bytes of the current stripe's blocks. */
  get bytesWritten(): number {
    return this.stripeBytes;
  }

  /**
   * Encodes `rows` rows (one column per field, asked for in field order) into blocks and
   * appends them. Columns handed over (`owned`) may be encoded in the encoder threads.
   */
  async writeGroupFrom(rows: number, column: (c: number) => Column | Promise<Column>, opts: { owned?: boolean } = {}): Promise<GroupJson[]> {
    assert(this.state === 'open', `ao_column writeGroup on a ${this.state} appender`);
    assert(!this.busy, 'ao_column writeGroup while another is running');
    this.busy = true;
    try {
      const pool = opts.owned === true ? encodePool() : null;
      const window = pool === null ? 0 : pool.size + 1;
      const encoded: Promise<EncodedChunk>[] = [];
      const made: GroupJson[] = [];
      for (let start = 0; start < rows; start += this.blockRows) {
        const n = Math.min(this.blockRows, rows - start);
        made.push({ rows: n, live: n, columns: {}, blocks: {} });
      }
      let placed = 0;
      const placeNext = async () => {
        const c = placed++;
        await this.place(await encoded[c]!, this.fields[c]!, made);
      };
      for (let c = 0; c < this.fields.length; c++) {
        const col = await column(c);
        const f = this.fields[c]!;
        assert(col.length === rows, `ao_column writeGroup: column ${f.name} has ${col.length} rows, expected ${rows}`);
        assert(typeName(col.type) === typeName(f.type), `ao_column writeGroup: column ${f.name} is ${typeName(col.type)}, field is ${typeName(f.type)}`);
        if (pool?.takes(columnBytes(col)) === true) {
          const p = pool.encode(col, this.blockRows, this.codec);
          p.catch(() => undefined); // surfaced when placed
          encoded.push(p);
        } else encoded.push(Promise.resolve(encodeChunk(col, this.blockRows, this.codec)));
        while (encoded.length - placed > window) await placeNext();
      }
      while (placed < encoded.length) await placeNext();
      this.groups.push(...made);
      return made;
    } finally {
      this.busy = false;
    }
  }

  /** Appends one column's blocks (zones of blockRows rows) to its segment. */
  private async place(e: EncodedChunk, f: Field, groups: GroupJson[]): Promise<void> {
    assert(e.zones.length === groups.length, `ao_column: ${e.zones.length} blocks of ${f.name} for ${groups.length} row ranges`);
    const w = await this.writerFor(f.fieldId);
    const key = String(f.fieldId);
    for (let z = 0; z < e.zones.length; z++) {
      const zone = e.zones[z]!;
      const offset = w.position;
      await w.write(encodeBlockHeader(zone, e.format));
      await w.write(e.blobs[z]!);
      const length = BLOCK_HEADER_BYTES + zone.stored;
      groups[z]!.columns[key] = zone.stats;
      groups[z]!.blocks![key] = { seg: this.claim.segno, offset, length };
      this.stripeBytes += length;
    }
    this.eof[key] = w.position;
  }

  /** The column's segment, opened at its committed EOF (a new object when it has none). */
  private async writerFor(fieldId: number): Promise<ObjectWriter> {
    let w = this.writers.get(fieldId);
    if (w !== undefined) return w;
    const path = `${this.table}/${segmentPath(fieldId, this.claim.segno)}`;
    const committed = this.base?.eof[String(fieldId)];
    if (committed !== undefined) w = await this.store.append(path, committed);
    else {
      // No committed bytes. A file may still exist: left by a crashed holder of this claim.
      try {
        w = await this.store.create(path);
      } catch (e) {
        if (!(isPaxdError(e) && e.kind === 'exists') || !this.store.canAppend) throw e;
        w = await this.store.append(path, 0);
      }
    }
    this.writers.set(fieldId, w);
    return w;
  }

  /** Ends the current stripe: its DataFileJson entry (`pathInTable` is its identity, "ao/<name>"). */
  async finish(pathInTable: string): Promise<DataFileJson> {
    assert(this.state === 'open' && !this.busy, `ao_column finish on a ${this.state} appender`);
    const stripe: DataFileJson = { path: pathInTable, size: this.stripeBytes, layout: 'ao_column', footerOffset: 0, footerLength: 0, footerCrc: 0, groups: this.groups };
    this.groups = [];
    this.stripeBytes = 0;
    return stripe;
  }

  /** Makes every byte written durable (fsync per segment, and its folder for new ones). */
  async close(): Promise<void> {
    assert(this.state === 'open' && !this.busy, `ao_column close on a ${this.state} appender`);
    this.state = 'closed';
    for (const w of this.writers.values()) await w.close();
  }

  /** Whether any block was written (a commit without rows leaves the segments alone). */
  get wrote(): boolean {
    return this.writers.size > 0;
  }

  /**
   * The `ao` part of the snapshot built on `base`: the claimed set with its new EOFs and the
   * next generation. Called by the commit loop on every attempt. The claim guarantees nobody
   * else committed to this set since it was read; if the base disagrees anyway (a damaged
   * claim protocol), the commit fails rather than reference overwritten bytes.
   */
  segmentsFor(base: SnapshotJson): AoJson {
    const segments = [...(base.ao?.segments ?? [])];
    if (!this.wrote) return { segments };
    let current = segments.find((s) => s.segno === this.claim.segno);
    const expectedGen = this.base?.gen ?? 0;
    // A compaction that committed meanwhile may have dropped the set (no stripe referenced
    // it any more): it comes back as this append commits to it.
    if (current === undefined && this.base !== null) {
      current = this.base;
      segments.push(current);
    }
    if ((current?.gen ?? 0) !== expectedGen)
      throw new PaxdError(
        'conflict',
        SQLSTATE.serialization_failure,
        `could not append to relation "${this.table}": segment set ${this.claim.segno} is at generation ${current?.gen ?? 0}, the append claimed generation ${expectedGen}`,
      );
    const next: AoSegmentJson = { segno: this.claim.segno, gen: expectedGen + 1, eof: { ...(current?.eof ?? {}), ...this.eof } };
    return { segments: current === undefined ? [...segments, next] : segments.map((s) => (s === current ? next : s)) };
  }

  /** Gives the claim back (after the commit, or on abort). */
  async release(): Promise<void> {
    await releaseClaim(this.store, this.claim);
  }

  /** Drops everything: bytes appended past a committed EOF are never read; new segments are removed. */
  async abort(): Promise<void> {
    if (this.state === 'aborted') return;
    const wasOpen = this.state === 'open';
    this.state = 'aborted';
    if (wasOpen) for (const w of this.writers.values()) await w.abort().catch(() => undefined);
    await this.release();
  }
}

/** Claims the newest committed set with room (not busy), or else a new segment number. */
async function claimOne(store: ObjectStore, table: string, segments: readonly AoSegmentJson[], opts: AoAppenderOptions): Promise<{ claim: Claim; set: AoSegmentJson | null }> {
  if (store.canAppend && opts.freshSegments !== true) {
    const open = segments.filter((s) => Object.values(s.eof).every((e) => e < MAX_SEGMENT_BYTES)).sort((a, b) => b.segno - a.segno);
    for (const s of open.slice(0, REUSE_CANDIDATES)) {
      const c = await tryClaim(store, table, s.segno, s.gen);
      if (c !== null) return { claim: c, set: s };
    }
  }
  // A new set: one number above every number in use (committed, or claimed by anyone).
  let segno = 0;
  for (const s of segments) segno = Math.max(segno, s.segno);
  for (const o of await store.list(`${table}/${CLAIMS_DIR}/`)) segno = Math.max(segno, parseClaimPath(o.path)?.segno ?? 0);
  for (;;) {
    segno++;
    const c = await tryClaim(store, table, segno, 0);
    if (c !== null) return { claim: c, set: null };
  }
}

/** The latest snapshot, or null for a table whose first commit is this one (a prepared table). */
async function latestOrNull(store: ObjectStore, table: string): Promise<SnapshotJson | null> {
  try {
    return await latestSnapshot(store, table);
  } catch (e) {
    if (isPaxdError(e) && e.kind === 'not_found') return null;
    throw e;
  }
}
