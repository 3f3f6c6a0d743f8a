/**
 * A table delta (format v2, issue #20): what one commit changed in a table, not the whole
 * state. Delta N is `<table>/_snapshots/<N, 20 digits>.snap` (the name a v1 snapshot had:
 * numbering, exclusive creation and orphan skipping are unchanged), framed as ./frame.ts draws
 * it with magic "PXDL" around the UTF-8 JSON of DeltaJson:
 *
 *   { "format": 2, "table": "t", "id": 12, "parent": 11, "on": 11, "base": 8, "depth": 4,
 *     "since": 5120, "createdAt": "…", "operation": "append",
 *     "head": { "layout": "pax", "options": {…}, "fields": […], "nextFieldId": 3, "summary": {…} },
 *     "add": [DataFileJson…], "remove": ["data/a.pax"], "groups": [{ "path": "data/b.pax", "set": { "3": GroupJson } }],
 *     "ao": { "put": [AoSegmentJson…], "remove": [4] }, "ingested": { "drop": 1, "add": [IngestedFileJson…] } }
 *
 * State N = apply(state `on`, delta N); `on` is `parent`, or 0 (the empty state) for a create.
 * `base` is the newest checkpoint (./checkpoint.ts; or v1 snapshot) the writer knew on the
 * chain below N, 0 when the chain starts at a create; `depth` counts the deltas from `base` up
 * to N and `since` their bytes, so a writer knows when a checkpoint pays. The state's `head`
 * (schema, options; small) is carried whole; files, groups, segments and ingested identities
 * as changes. docs/FORMAT.md "Table metadata v2" draws the rest.
 */
import { corruption } from '../types/index.js';
import { decodeFrame, encodeFrame, FRAME_HEADER_BYTES, type FrameKind } from './frame.js';
import type { AoSegmentJson, DataFileJson, FieldJson, GroupJson, IngestedFileJson, SnapshotJson, TableOptionsJson, ViewJson } from './snapshot-types.js';

export const DELTA_MAGIC = new Uint8Array([0x50, 0x58, 0x44, 0x4c]); // "PXDL"
export const DELTA_FRAME: FrameKind = { noun: 'delta', magic: DELTA_MAGIC };

export interface DeltaJson {
  format: 2;
  table: string;
  id: number;
  parent: number;
  /** The state this delta applies to: `parent`, or 0 (empty) for a create. */
  on: number;
  /** The checkpoint the chain below starts at (0: the create). */
  base: number;
  /** Deltas from `base` (exclusive) up to this one (inclusive). */
  depth: number;
  /** Encoded bytes of those deltas, this one excluded. */
  since: number;
  createdAt: string;
  operation: SnapshotJson['operation'];
  incarnation?: number;
  head: DeltaHead;
  add?: DataFileJson[];
  remove?: string[];
  /** Groups replaced in files that stay, by index. */
  groups?: { path: string; set: Record<string, GroupJson> }[];
  /** The file order after the change, when it is not "kept files in order, then added ones". */
  order?: string[];
  ao?: { put: AoSegmentJson[]; remove: number[] } | null;
  ingested?: { drop: number; add: IngestedFileJson[] } | null;
}

export interface DeltaHead {
  layout: SnapshotJson['layout'];
  options: TableOptionsJson;
  fields: FieldJson[];
  nextFieldId: number;
  summary?: Record<string, string | number>;
  /** A view's definition (SnapshotJson.view), carried whole like the schema. */
  view?: ViewJson;
}

/** The empty state a create applies to. */
export function emptyState(table: string): SnapshotJson {
  return {
    format: 1,
    table,
    id: 0,
    parent: 0,
    createdAt: '',
    operation: 'create',
    layout: 'pax',
    options: { codec: 'none', rowGroupRows: 0, rowGroupBytes: 0, zoneRows: 0 },
    fields: [],
    nextFieldId: 1,
    files: [],
  };
}

/** What changed from `base` to `next` (next.id, parent, createdAt already set); `on` is base.id (0: empty). */
export function diffStates(base: SnapshotJson, next: SnapshotJson, chain: { on: number; base: number; depth: number; since: number }): DeltaJson {
  const d: DeltaJson = {
    format: 2,
    table: next.table,
    id: next.id,
    parent: next.parent,
    on: chain.on,
    base: chain.base,
    depth: chain.depth,
    since: chain.since,
    createdAt: next.createdAt,
    operation: next.operation,
    head: { layout: next.layout, options: next.options, fields: next.fields, nextFieldId: next.nextFieldId },
  };
  if (next.incarnation !== undefined) d.incarnation = next.incarnation;
  if (next.summary !== undefined) d.head.summary = next.summary;
  if (next.view !== undefined) d.head.view = next.view;
  if (next.files !== base.files) diffFiles(base.files, next.files, d);
  if (next.ao !== base.ao) {
    if (next.ao === undefined) d.ao = null;
    else {
      const was = new Map((base.ao?.segments ?? []).map((s) => [s.segno, s]));
      const put = next.ao.segments.filter((s) => {
        const w = was.get(s.segno);
        return w === undefined || (w !== s && JSON.stringify(w) !== JSON.stringify(s));
      });
      const now = new Set(next.ao.segments.map((s) => s.segno));
      const remove = [...was.keys()].filter((n) => !now.has(n));
      if (put.length > 0 || remove.length > 0 || base.ao === undefined) d.ao = { put, remove };
    }
  }
  if (next.ingested !== base.ingested) {
    if (next.ingested === undefined) d.ingested = null;
    else d.ingested = diffIngested(base.ingested ?? [], next.ingested);
  }
  return d;
}

function diffFiles(was: readonly DataFileJson[], now: readonly DataFileJson[], d: DeltaJson): void {
  const before = new Map(was.map((f) => [f.path, f]));
  const keep = new Set<string>();
  const add: DataFileJson[] = [];
  const groups: { path: string; set: Record<string, GroupJson> }[] = [];
  for (const f of now) {
    const w = before.get(f.path);
    if (w === undefined || keep.has(f.path)) {
      add.push(f);
      continue;
    }
    keep.add(f.path);
    if (w === f) continue;
    if (!sameFileFields(w, f) || w.groups.length !== f.groups.length) {
      // Replaced whole: removed and added under the same path.
      keep.delete(f.path);
      add.push(f);
      continue;
    }
    const set: Record<string, GroupJson> = {};
    let n = 0;
    for (let g = 0; g < f.groups.length; g++) {
      const a = w.groups[g]!;
      const b = f.groups[g]!;
      if (a !== b && JSON.stringify(a) !== JSON.stringify(b)) {
        set[String(g)] = b;
        n++;
      }
    }
    if (n > 0) groups.push({ path: f.path, set });
  }
  const remove = was.filter((f) => !keep.has(f.path)).map((f) => f.path);
  if (add.length > 0) d.add = add;
  if (remove.length > 0) d.remove = remove;
  if (groups.length > 0) d.groups = groups;
  // The order applyDelta produces: kept files in their old order, then the added ones.
  const implied = [...was.filter((f) => keep.has(f.path)).map((f) => f.path), ...add.map((f) => f.path)];
  if (implied.length !== now.length || implied.some((p, i) => p !== now[i]!.path)) d.order = now.map((f) => f.path);
}

function sameFileFields(a: DataFileJson, b: DataFileJson): boolean {
  return a.size === b.size && a.layout === b.layout && a.footerOffset === b.footerOffset && a.footerLength === b.footerLength && a.footerCrc === b.footerCrc;
}

const sameIdentity = (a: IngestedFileJson, b: IngestedFileJson): boolean => a.name === b.name && a.size === b.size && a.hash === b.hash;

function diffIngested(was: readonly IngestedFileJson[], now: readonly IngestedFileJson[]): { drop: number; add: IngestedFileJson[] } {
  // The window slides: now = was[drop..] + added (./ingested.ts).
  for (let drop = 0; drop <= was.length; drop++) {
    const kept = was.length - drop;
    if (kept > now.length) continue;
    let ok = true;
    for (let i = 0; i < kept && ok; i++) ok = sameIdentity(was[drop + i]!, now[i]!);
    if (ok) return { drop, add: now.slice(kept) };
  }
  return { drop: was.length, add: [...now] };
}

/** State delta.id: `on` (the state delta.on, or emptyState) with the delta's changes; `on` is never changed. */
export function applyDelta(on: SnapshotJson, d: DeltaJson, path: string): SnapshotJson {
  const bad = (why: string): Error => corruption(path, FRAME_HEADER_BYTES, `delta ${path}: ${why}`);
  let files = on.files;
  if (d.add !== undefined && d.remove === undefined && d.groups === undefined && d.order === undefined) {
    // An append (the common delta): no set of the paths before it, so that applying a chain of
    // appends costs what they add, not the table's file count each (issue #20, ao_column).
    files = on.files.concat(d.add);
  } else if (d.add !== undefined || d.remove !== undefined || d.groups !== undefined || d.order !== undefined) {
    const removed = new Set(d.remove ?? []);
    const changed = new Map((d.groups ?? []).map((g) => [g.path, g.set]));
    const out: DataFileJson[] = [];
    const present = new Set<string>();
    for (const f of on.files) present.add(f.path);
    for (const p of removed) if (!present.has(p)) throw bad(`removes file ${p}, which state ${d.on} does not have`);
    for (const f of on.files) {
      if (removed.has(f.path)) continue;
      const set = changed.get(f.path);
      if (set === undefined) {
        out.push(f);
        continue;
      }
      changed.delete(f.path);
      const groups = f.groups.slice();
      for (const [k, g] of Object.entries(set)) {
        const i = Number(k);
        if (!Number.isSafeInteger(i) || i < 0 || i >= groups.length) throw bad(`replaces group ${k} of ${f.path}, which has ${groups.length}`);
        groups[i] = g;
      }
      out.push({ ...f, groups });
    }
    for (const p of changed.keys()) throw bad(`replaces groups of file ${p}, which state ${d.on} does not have`);
    for (const f of d.add ?? []) out.push(f);
    files = out;
    if (d.order !== undefined) {
      const byPath = new Map(out.map((f) => [f.path, f]));
      if (d.order.length !== out.length || byPath.size !== out.length) throw bad(`orders ${d.order.length} files, the change leaves ${out.length}`);
      files = d.order.map((p) => {
        const f = byPath.get(p);
        if (f === undefined) throw bad(`orders file ${p}, which the change does not leave`);
        return f;
      });
    }
  }
  const next: SnapshotJson = {
    format: 1,
    table: d.table,
    id: d.id,
    parent: d.parent,
    createdAt: d.createdAt,
    operation: d.operation,
    layout: d.head.layout,
    options: d.head.options,
    fields: d.head.fields,
    nextFieldId: d.head.nextFieldId,
    files,
  };
  if (d.incarnation !== undefined) next.incarnation = d.incarnation;
  if (d.head.summary !== undefined) next.summary = d.head.summary;
  if (d.head.view !== undefined) next.view = d.head.view;
  const ao = d.ao === undefined ? on.ao : d.ao === null ? undefined : applySegments(on.ao?.segments ?? [], d.ao);
  if (ao !== undefined) next.ao = ao;
  const ingested = d.ingested === undefined ? on.ingested : d.ingested === null ? undefined : [...(on.ingested ?? []).slice(d.ingested.drop), ...d.ingested.add];
  if (ingested !== undefined) next.ingested = ingested;
  return next;
}

function applySegments(was: readonly AoSegmentJson[], c: { put: AoSegmentJson[]; remove: number[] }): { segments: AoSegmentJson[] } {
  const removed = new Set(c.remove);
  const put = new Map(c.put.map((s) => [s.segno, s]));
  const segments: AoSegmentJson[] = [];
  for (const s of was) {
    if (removed.has(s.segno)) continue;
    const p = put.get(s.segno);
    if (p !== undefined) put.delete(s.segno);
    segments.push(p ?? s);
  }
  for (const s of put.values()) segments.push(s);
  return { segments };
}

export function encodeDelta(d: DeltaJson): Uint8Array {
  return encodeFrame(DELTA_FRAME, d);
}

/** The delta in `bytes` (the whole file at `path`, which names delta `id`); corruption (XX001) for anything else. */
export function decodeDelta(bytes: Uint8Array, path: string, id: number): DeltaJson {
  const v = decodeFrame(DELTA_FRAME, bytes, path);
  const problem = deltaShapeProblem(v, id);
  if (problem !== null) throw corruption(path, FRAME_HEADER_BYTES, `delta ${path}: ${problem}`);
  return v as DeltaJson;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * What apply relies on. The files, groups and segments it carries are checked as a whole
 * state once applied (./snapshot.ts, the one shape check of a SnapshotJson).
 */
function deltaShapeProblem(v: unknown, id: number): string | null {
  if (!isObject(v)) return 'the payload is not an object';
  if (v.format !== 2) return `delta.format is ${JSON.stringify(v.format)}, expected 2`;
  if (typeof v.table !== 'string') return 'delta.table is not a string';
  for (const k of ['id', 'parent', 'on', 'base', 'depth', 'since']) if (!isCount(v[k])) return `delta.${k} is ${JSON.stringify(v[k]) ?? 'missing'}`;
  if (v.id !== id) return `delta.id is ${JSON.stringify(v.id)}, expected ${id}`;
  if ((v.on as number) >= id || (v.base as number) >= id || (v.parent as number) >= id) return `delta ${id} applies to ${JSON.stringify(v.on)} on base ${JSON.stringify(v.base)}: not below it`;
  if (v.on !== 0 && v.on !== v.parent) return `delta.on is ${JSON.stringify(v.on)}, expected 0 or the parent ${JSON.stringify(v.parent)}`;
  if (typeof v.createdAt !== 'string' || typeof v.operation !== 'string') return 'delta.createdAt or delta.operation is not a string';
  if (!isObject(v.head) || !Array.isArray(v.head.fields) || !isObject(v.head.options)) return 'delta.head is not a state head';
  for (const k of ['add', 'remove', 'groups', 'order'] as const) if (v[k] !== undefined && !Array.isArray(v[k])) return `delta.${k} is not an array`;
  if (v.remove !== undefined && !(v.remove as unknown[]).every((p) => typeof p === 'string')) return 'delta.remove is not an array of paths';
  if (v.order !== undefined && !(v.order as unknown[]).every((p) => typeof p === 'string')) return 'delta.order is not an array of paths';
  if (v.groups !== undefined && !(v.groups as unknown[]).every((g) => isObject(g) && typeof g.path === 'string' && isObject(g.set))) return 'delta.groups is not an array of {path, set}';
  if (v.ao !== undefined && v.ao !== null) {
    if (!isObject(v.ao) || !Array.isArray(v.ao.put) || !Array.isArray(v.ao.remove) || !v.ao.put.every((s) => isObject(s) && isCount(s.segno)) || !v.ao.remove.every(isCount)) return 'delta.ao is not {put, remove}';
  }
  if (v.ingested !== undefined && v.ingested !== null) {
    if (!isObject(v.ingested) || !isCount(v.ingested.drop) || !Array.isArray(v.ingested.add)) return 'delta.ingested is not {drop, add}';
  }
  return null;
}
