/**
 * Top-N at the library level (docs/ARCHITECTURE.md "Scans that skip"): ORDER BY keys LIMIT n OFFSET m over a table, with a
 * bounded heap of LIMIT + OFFSET rows that pushes a running bound into the scan.
 *
 *   const r = await table.topN({ orderBy: [{ column: 'ts', desc: true }], limit: 10 });
 *   r.columns   // one Column per output column, the rows in order
 *   r.stats     // groups read, skipped by bound, …
 *
 * Order: PostgreSQL's — ASC NULLS LAST and DESC NULLS FIRST by default, NaN above every
 * number, text byte-wise. Ties (rows equal on every key) are broken by storage position — the
 * order of a full scan of the pinned snapshot (files in snapshot order, groups, rows) — so the
 * answer is deterministic and equals a stable sort of the full scan.
 *
 * The scan visits groups in the order that tightens the bound fastest (`visit: 'bound'`, the
 * default: by descending max for a DESC first key) or in storage order (`visit: 'storage'`).
 * Bounds follow DESIGN.md: pushed only once the heap holds LIMIT + OFFSET rows (so never
 * below a LIMIT or OFFSET it could change), on the first key — a bare column of the stored
 * type — admitting NULLs when they sort before the worst row; strict (`ts > w`) only when a
 * row tying the worst row can never displace it — a single key and storage-order visits,
 * where every unread row comes later in storage order — and inclusive (`ts >= w`) otherwise,
 * since with several keys or out-of-order visits a tie may still win.
 */
import { type Batch, type Column, type Value, ColumnBuilder, getValue, compareValues, PaxdError, SQLSTATE, featureNotSupported, invalidRowCount, undefinedColumn, physicalOf, type Field } from '../types/index.js';
import { type ObjectStore, type SnapshotJson, fieldsOf } from '../storage/index.js';
import { BoundedHeap } from './heap.js';
import { P, type Predicate } from './predicate.js';
import { TableScan, type ScanStats } from './reader.js';

export interface OrderKey {
  column: string;
  desc?: boolean;
  /** Default: true for DESC, false for ASC (PostgreSQL). */
  nullsFirst?: boolean;
}

export interface TopNOptions {
  orderBy: readonly OrderKey[];
  limit: number;
  offset?: number;
  where?: Predicate;
  /** Output columns; all columns when absent. */
  columns?: readonly string[];
  /** Group visit order: 'bound' (default) tightens the bound fastest; 'storage' reads in storage order. */
  visit?: 'bound' | 'storage';
  batchRows?: number;
  /** Called before each batch: the engine's interrupt-and-yield point (scan/aggregate.ts AggregateOptions). */
  interrupt?: () => void | Promise<void>;
}

export interface TopNResult {
  fields: readonly Field[];
  /** The rows, in order, one Column per output field. */
  columns: Column[];
  rows: number;
  /** The same rows as a Batch (no selection). */
  batch: Batch;
  stats: ScanStats;
}

interface Entry {
  keys: Value[];
  pos: number;
  row: Value[];
}

/** Rows per group are < 2^24 (rowGroupRows ≤ 2^24), so rank·2^24 + row is a storage position. */
const ROW_BITS = 2 ** 24;

export async function topN(store: ObjectStore, table: string, snapshot: SnapshotJson, o: TopNOptions): Promise<TopNResult> {
  const all = fieldsOf(snapshot);
  const byName = (name: string): Field => {
    const f = all.find((x) => x.name === name);
    if (f === undefined) throw undefinedColumn(name, { relation: table });
    return f;
  };
  if (o.orderBy.length === 0) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, 'topN needs at least one ORDER BY key');
  const offset = o.offset ?? 0;
  if (!Number.isSafeInteger(o.limit) || o.limit < 0) throw invalidRowCount('LIMIT');
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalidRowCount('OFFSET');
  const out = (o.columns ?? all.map((f) => f.name)).map(byName);
  const keys = o.orderBy.map((k) => {
    const f = byName(k.column);
    if (f.type.id === 'jsonb') throw featureNotSupported(`ORDER BY jsonb column "${f.name}"`);
    const desc = k.desc ?? false;
    return { f, desc, nullsFirst: k.nullsFirst ?? desc };
  });
  const scanFields: Field[] = [...out];
  const idx = (f: Field): number => {
    let i = scanFields.findIndex((x) => x.fieldId === f.fieldId);
    if (i < 0) {
      scanFields.push(f);
      i = scanFields.length - 1;
    }
    return i;
  };
  const keyIdx = keys.map((k) => idx(k.f));
  const capacity = o.limit + offset;
  const visit = o.visit ?? 'bound';
  const scan = new TableScan(store, table, snapshot, {
    columns: scanFields.map((f) => f.name),
    ...(o.where !== undefined ? { where: o.where } : {}),
    ...(visit === 'bound' ? { order: { column: keys[0]!.f.name, desc: keys[0]!.desc, nullsFirst: keys[0]!.nullsFirst } } : {}),
    ...(o.batchRows !== undefined ? { batchRows: o.batchRows } : {}),
  });

  /** Negative when a sorts before b (a is better). */
  const cmpKey = (k: number, a: Value, b: Value): number => {
    const key = keys[k]!;
    if (a === null || b === null) {
      if (a === b) return 0;
      return (a === null) === key.nullsFirst ? -1 : 1;
    }
    const c = compareValues(key.f.type, a, b);
    return key.desc ? -c : c;
  };
  const cmpEntry = (a: Entry, b: Entry): number => {
    for (let k = 0; k < keys.length; k++) {
      const c = cmpKey(k, a.keys[k]!, b.keys[k]!);
      if (c !== 0) return c;
    }
    return a.pos - b.pos;
  };

  // The worst entry kept is the heap's root (./heap.ts).
  const heap = new BoundedHeap<Entry>(capacity, cmpEntry);
  const inclusive = keys.length > 1 || visit !== 'storage';
  let pushed: Value | undefined;
  const pushBound = () => {
    const k = keys[0]!;
    const w = heap.worst()!.keys[0]!;
    if (pushed !== undefined && (w === pushed || (w !== null && pushed !== null && compareValues(k.f.type, w, pushed) === 0))) return;
    pushed = w;
    if (w === null) {
      // NULLS FIRST: the heap holds only NULLs, only NULLs can tie or win.
      // NULLS LAST: every non-NULL wins; NULLs can only tie.
      if (k.nullsFirst) scan.setBoundPredicate(k.f.name, P.isNull(k.f.name));
      else if (!inclusive) scan.setBoundPredicate(k.f.name, P.isNotNull(k.f.name));
      return;
    }
    const op = k.desc ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
    scan.setBound(k.f.name, op, w, { orNull: k.nullsFirst });
  };

  // Fast rejection on the first key for numeric columns: once the heap is full, a row whose
  // first key is strictly worse than the worst row's is skipped on the typed array, with no
  // Value extracted (no BigInt per int8/timestamp row). NULLs, NaN and ties take the full path.
  const k0 = keys[0]!;
  const p0 = physicalOf(k0.f.type);
  const mode = p0 === 'i64' ? 2 : p0 === 'i16' || p0 === 'i32' || p0 === 'f32' || p0 === 'f64' ? 1 : 0;
  let thrOk = false;
  let thrNum = 0;
  let thrHi = 0;
  let thrLo = 0;
  const setThreshold = () => {
    thrOk = false;
    if (mode === 0 || !heap.full) return;
    const w = heap.worst()!.keys[0]!;
    if (w === null) return;
    if (mode === 1) {
      thrNum = w as number;
      thrOk = !Number.isNaN(thrNum);
    } else {
      thrHi = Number(BigInt.asIntN(32, (w as bigint) >> 32n));
      thrLo = Number(BigInt.asUintN(32, w as bigint));
      thrOk = true;
    }
  };

  if (capacity > 0) {
    await scan.begin();
    try {
      for (let b = await scan.next(); b !== null; b = await scan.next()) {
        if (o.interrupt !== undefined) await o.interrupt();
        const base = scan.position.unit * ROW_BITS + scan.position.row;
        const sel = b.selection;
        const n = sel === null ? b.length : sel.length;
        const key0 = b.columns[keyIdx[0]!]!;
        const nums = mode === 1 ? (key0.values as Float64Array) : null;
        const v32 = mode === 2 ? new Int32Array(key0.values.buffer, key0.values.byteOffset, key0.length * 2) : null;
        const validity = key0.validity;
        const desc = k0.desc;
        let changed = false;
        // Data is most often stored ascending (time): for a DESC first key, walk each batch
        // backwards so the best rows of a batch come first and the rest fail fast. The order
        // rows are offered in does not change the answer (ties compare by storage position).
        for (let jj = 0; jj < n; jj++) {
          const j = desc ? n - 1 - jj : jj;
          const i = sel === null ? j : sel[j]!;
          if (thrOk && (validity === null || (validity[i >>> 3]! & (1 << (i & 7))) !== 0)) {
            if (nums !== null) {
              const v = nums[i]!;
              if (v === v && (desc ? v < thrNum : v > thrNum)) continue;
            } else if (v32 !== null) {
              const hi = v32[2 * i + 1]!;
              const lo = v32[2 * i]! >>> 0;
              const c = hi !== thrHi ? (hi < thrHi ? -1 : 1) : lo === thrLo ? 0 : lo < thrLo ? -1 : 1;
              if (desc ? c < 0 : c > 0) continue;
            }
          }
          const v0 = getValue(key0, i);
          if (heap.full) {
            const worst = heap.worst()!;
            const c = cmpKey(0, v0, worst.keys[0]!);
            if (c > 0) continue; // worse than the worst on the first key
            const cand: Entry = { keys: keyIdx.map((ci, k) => (k === 0 ? v0 : getValue(b.columns[ci]!, i))), pos: base + i, row: [] };
            if (cmpEntry(cand, worst) >= 0) continue;
            cand.row = out.map((_, ci) => getValue(b.columns[ci]!, i));
            heap.replaceWorst(cand);
            setThreshold();
          } else {
            heap.offer({ keys: keyIdx.map((ci, k) => (k === 0 ? v0 : getValue(b.columns[ci]!, i))), pos: base + i, row: out.map((_, ci) => getValue(b.columns[ci]!, i)) });
            if (heap.full) setThreshold();
          }
          changed = true;
        }
        if (changed && heap.full) pushBound();
      }
    } finally {
      await scan.end();
    }
  }

  const sorted = heap.sorted().slice(offset);
  const columns = out.map((f, ci) => {
    const cb = new ColumnBuilder(f.type, sorted.length);
    for (const e of sorted) cb.append(e.row[ci]!);
    return cb.finish();
  });
  return { fields: out, columns, rows: sorted.length, batch: { length: sorted.length, columns, selection: null }, stats: scan.stats };
}
