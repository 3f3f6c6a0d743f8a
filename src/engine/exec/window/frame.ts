/**
 * WindowAgg, frames (PostgreSQL 15 docs 4.2.8; nodeWindowAgg.c update_framehead/tailpos): for
 * each row of a partition, the frame as positions [start, end) of the partition, then the rows
 * EXCLUDE takes out of it as at most three segments.
 *
 *   ROWS    offsets count rows; GROUPS count peer groups; RANGE compares the ORDER BY key with
 *           the current row's key ± offset (the binder made both of one type, ../../ir.ts).
 *   A NULL key is in range of NULL keys only (in_range is never asked about NULLs).
 *
 * Every bound moves forward as the current row does, so each is found by a pointer that only
 * advances: O(n) per partition.
 */
import { SQLSTATE, type PgType, type Value } from '../../../types/index.js';
import { SqlError } from '../../errors.js';
import type { Frame, FrameBound, FrameExclusion, WindowSpec } from '../../ir.js';
import type { RowBatch } from '../batch.js';
import { evaluate } from '../eval.js';
import { compare, fromText } from '../kernels.js';
import { evaluateAll, type Sorted } from './partition.js';

/** A frame bound whose offset has been evaluated (once per execution, as calculate_frame_offsets does). */
type Resolved =
  | { readonly kind: 'unbounded' | 'current' }
  | { readonly kind: 'rows'; readonly following: boolean; readonly n: number }
  | { readonly kind: 'range'; readonly following: boolean; readonly key: readonly Value[]; readonly bound: readonly Value[]; readonly type: PgType };

export interface ResolvedFrame {
  readonly unit: Frame['unit'];
  readonly start: Resolved;
  readonly end: Resolved;
  readonly exclude: FrameExclusion;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

const ONE_ROW: RowBatch = { rows: 1, cols: [] };

function offsetError(code: string, message: string): SqlError {
  return new SqlError('invalid_input', code, message);
}

async function resolveBound(b: FrameBound, which: 'starting' | 'ending', input: RowBatch): Promise<Resolved> {
  if (b.kind !== 'offset') return b;
  const v = evaluate(b.offset, ONE_ROW)[0]!;
  if (v === null) throw offsetError(SQLSTATE.null_value_not_allowed, `frame ${which} offset must not be null`);
  if (b.range === undefined) {
    const n = typeof v === 'bigint' ? v : BigInt(v as number);
    if (n < 0n) throw offsetError(SQLSTATE.invalid_preceding_or_following_size, `frame ${which} offset must not be negative`);
    return { kind: 'rows', following: b.following, n: Number(n) };
  }
  const t = b.offset.type;
  if ((typeof v === 'number' && Number.isNaN(v)) || v === 'NaN' || compare(t, v, fromText(t, '0')) < 0)
    throw offsetError(SQLSTATE.invalid_preceding_or_following_size, 'invalid preceding or following size in window function');
  return { kind: 'range', following: b.following, key: await evaluateAll(b.range.key, input), bound: await evaluateAll(b.range.bound, input), type: b.range.bound.type };
}

export async function resolveFrame(spec: WindowSpec, input: RowBatch): Promise<ResolvedFrame> {
  const f = spec.frame;
  const first = spec.order[0];
  return {
    unit: f.unit,
    start: await resolveBound(f.start, 'starting', input),
    end: await resolveBound(f.end, 'ending', input),
    exclude: f.exclude,
    desc: first?.desc ?? false,
    nullsFirst: first?.nullsFirst ?? false,
  };
}

/**
 * Frames of the partition at sorted positions [p0, p1): `start[i]` and `end[i]` (exclusive)
 * relative to p0. `gs`/`ge` are each row's peer group bounds, relative too.
 */
export function frameBounds(rf: ResolvedFrame, s: Sorted, p0: number, p1: number, gs: Int32Array, ge: Int32Array, start: Int32Array, end: Int32Array): void {
  const n = p1 - p0;
  bounds(rf, rf.start, true, s, p0, n, gs, ge, start);
  bounds(rf, rf.end, false, s, p0, n, gs, ge, end);
}

function bounds(rf: ResolvedFrame, b: Resolved, head: boolean, s: Sorted, p0: number, n: number, gs: Int32Array, ge: Int32Array, out: Int32Array): void {
  switch (b.kind) {
    case 'unbounded':
      out.fill(head ? 0 : n, 0, n);
      return;
    case 'current':
      for (let i = 0; i < n; i++) out[i] = rf.unit === 'rows' ? (head ? i : i + 1) : head ? gs[i]! : ge[i]!;
      return;
    case 'rows':
      if (rf.unit === 'rows') {
        const d = b.following ? b.n : -b.n;
        for (let i = 0; i < n; i++) out[i] = clamp(i + d + (head ? 0 : 1), n);
        return;
      }
      groupsBounds(b, head, s, p0, n, out);
      return;
    case 'range':
      rangeBounds(rf, b, head, s, p0, n, out);
      return;
    default: {
      const never: never = b;
      throw new Error(`frame bound ${JSON.stringify(never)}`);
    }
  }
}

function clamp(x: number, n: number): number {
  return x < 0 ? 0 : x > n ? n : x;
}

/** GROUPS: k groups before or after the current row's; the groups' first and last rows. */
function groupsBounds(b: Extract<Resolved, { kind: 'rows' }>, head: boolean, s: Sorted, p0: number, n: number, out: Int32Array): void {
  // Each group's first row and one past its last, by group number.
  const firsts: number[] = [];
  for (let i = 0; i < n; i++) if (i === 0 || s.group[p0 + i] !== s.group[p0 + i - 1]) firsts.push(i);
  const count = firsts.length;
  for (let i = 0; i < n; i++) {
    const g = s.group[p0 + i]!;
    const target = g + (b.following ? b.n : -b.n);
    if (head) out[i] = target < 0 ? 0 : target >= count ? n : firsts[target]!;
    else out[i] = target < 0 ? 0 : target >= count ? n : target + 1 < count ? firsts[target + 1]! : n;
  }
}

/** RANGE offset: the first row in range (head) or the first row past it (tail), by advancing pointers. */
function rangeBounds(rf: ResolvedFrame, b: Extract<Resolved, { kind: 'range' }>, head: boolean, s: Sorted, p0: number, n: number, out: Int32Array): void {
  const key = (j: number) => b.key[s.idx[p0 + j]!]!;
  let j = 0;
  for (let i = 0; i < n; i++) {
    const ki = key(i);
    const bound = ki === null ? null : b.bound[s.idx[p0 + i]!]!;
    if (head) {
      // Advance past the rows before the frame's first.
      while (j < n && before(key(j), ki, bound)) j++;
    } else {
      while (j < n && !after(key(j), ki, bound)) j++;
    }
    out[i] = j;
  }

  function before(kj: Value, ki: Value, bound: Value): boolean {
    if (ki === null) return kj !== null;
    if (kj === null) return rf.nullsFirst;
    const c = compare(b.type, kj, bound);
    return rf.desc ? c > 0 : c < 0;
  }

  function after(kj: Value, ki: Value, bound: Value): boolean {
    if (ki === null) return kj !== null && rf.nullsFirst;
    if (kj === null) return !rf.nullsFirst;
    const c = compare(b.type, kj, bound);
    return rf.desc ? c < 0 : c > 0;
  }
}

/**
 * The frame [s, e) of row i without what EXCLUDE takes out, as flat [from, to) pairs in order.
 * `gs`/`ge`: row i's peer group.
 */
export function frameSegments(exclude: FrameExclusion, i: number, s: number, e: number, gs: number, ge: number): number[] {
  if (s >= e) return [];
  switch (exclude) {
    case 'no-others':
      return [s, e];
    case 'current':
      return cut([s, Math.min(e, i), Math.max(s, i + 1), e]);
    case 'group':
      return cut([s, Math.min(e, gs), Math.max(s, ge), e]);
    case 'ties':
      return cut([s, Math.min(e, gs), Math.max(s, i), Math.min(e, i + 1), Math.max(s, ge), e]);
    default: {
      const never: never = exclude;
      throw new Error(`EXCLUDE ${String(never)}`);
    }
  }
}

function cut(pairs: number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < pairs.length; k += 2) if (pairs[k]! < pairs[k + 1]!) out.push(pairs[k]!, pairs[k + 1]!);
  return out;
}
