/**
 * Aggregates answered from statistics (docs/ARCHITECTURE.md "Scans that skip"): count(*), count(col), min, max, sum, avg
 * over a table with an optional predicate.
 *
 *   const r = await table.aggregate([{ fn: 'count_star' }, { fn: 'sum', column: 'qty' }], P.gt('ts', t0));
 *   r.values   // [1234n, '98765']   count is int8 (bigint), sum(int8) is numeric (exact text)
 *   r.stats.groupsAnsweredFromStats
 *
 * Each row group is classified from the snapshot's statistics (./prune.ts): 'none' is
 * skipped, 'all' is answered from the group's statistics when every requested aggregate can
 * be (exact min/max, exact sums, live counts — deletes keep all of these exact, ./delete.ts),
 * and the rest are scanned with the predicate (zone pruning and late materialization
 * included). Partial results are combined in storage order, exactly:
 *
 *   count, count_star   int8 (bigint)
 *   min, max            the column's type (bpchar(n) padded to n); NaN is the largest float
 *                       and numeric, as in PostgreSQL; not for bool and jsonb (42883)
 *   sum                 int2/int4 -> int8 (bigint); int8, numeric(p,s), numeric -> numeric,
 *                       returned as exact decimal text ("12.50", "NaN", "Infinity");
 *                       float4 -> float4, float8 -> float8 (numbers)
 *   avg                 int2/int4/int8/numeric -> numeric text, with the result scale of
 *                       PostgreSQL's numeric division (select_div_scale: at least 16
 *                       significant digits, rounded half away from zero), e.g. avg(1, 2) =
 *                       "1.5000000000000000"; float4/float8 -> float8
 *
 * Float sums: a group's statistic is the sum of its zones' partial sums (each in row order,
 * starting from -0), folded in zone order (docs/FORMAT.md). A scan sums the same way — one
 * partial per zone, folded per group, groups folded in storage order — so sum(float) from
 * statistics equals the scanned one bit for bit. avg(float8) divides that sum by the count.
 * avg(float4) accumulates in float8 as PostgreSQL does; float4 statistics cannot give that,
 * so those groups are scanned.
 */
import { averageDecimal, formatDecimalValue, parseDecimalValue, type DecimalValue, type Column, type Value, getValue, compareValues, PaxdError, SQLSTATE, undefinedColumn, undefinedFunction, type Field, type PgType, isDecimal128, pgDisplayName } from '../types/index.js';
import { type ObjectStore, type SnapshotJson, fieldsOf, fileCounts } from '../storage/index.js';
import { type ColumnStats, computeStats, mergeStats } from '../stats/index.js';
import { MAX_ZONE_ROWS } from '../pax/index.js';
import { type Predicate, bindPredicate } from './predicate.js';
import { classify } from './prune.js';
import { TableScan, emptyStats, type ScanStats } from './reader.js';
import { groupStats } from './unit-stats.js';
import { gather } from './gather.js';

export type AggFn = 'count' | 'count_star' | 'min' | 'max' | 'sum' | 'avg';

export interface AggSpec {
  fn: AggFn;
  /** The column; not for count_star. */
  column?: string;
}

export interface AggregateOptions {
  /** Answer 'all' groups from statistics (default true); false scans every group (tests, checks). */
  useStats?: boolean;
  /**
   * Called before each batch: the engine's interrupt-and-yield point (src/engine/context.ts),
   * which throws when the statement was stopped and gives the event loop back now and then.
   */
  interrupt?: () => void | Promise<void>;
}

export interface AggregateResult {
  /** One value per requested aggregate, in order (NULL for min/max/sum/avg of no rows). */
  values: Value[];
  /** The PostgreSQL result type of each aggregate. */
  types: PgType[];
  stats: ScanStats;
}

interface Resolved {
  spec: AggSpec;
  field: Field | null;
  /** Index into the distinct aggregated fields. */
  slot: number;
  type: PgType;
}

/** Per group: statistics of each aggregated column over the matching rows, and their count. */
interface Partial {
  rows: number;
  cols: (ColumnStats | null)[];
  /** float8 sums of float4 columns (avg), per slot. */
  f8: number[];
}

export async function aggregate(
  store: ObjectStore,
  table: string,
  snapshot: SnapshotJson,
  aggs: readonly AggSpec[],
  where?: Predicate,
  options: AggregateOptions = {},
): Promise<AggregateResult> {
  const all = fieldsOf(snapshot);
  const fields: Field[] = [];
  const resolved: Resolved[] = aggs.map((spec) => resolve(spec, all, fields, table));
  const bound = where === undefined ? null : bindPredicate(where, all, table);
  const zoneRows = snapshot.options.zoneRows;
  const useStats = options.useStats ?? true;
  const needF8 = fields.map((f, slot) => f.type.id === 'float4' && resolved.some((r) => r.slot === slot && r.spec.fn === 'avg'));

  const stats = emptyStats();
  if (bound === null && useStats && resolved.every((a) => a.spec.fn === 'count_star')) {
    // count(*) alone, no predicate: the live counts, in one loop without an object per group
    // (issue #20: under 2 ms at 100,000 groups). Same classification as below: an empty
    // group is 'none', any other 'all'.
    let rows = 0;
    for (const file of snapshot.files) {
      const c = fileCounts(file);
      rows += c.live;
      stats.groupsSkippedByPredicate += c.empty;
      stats.groupsTotal += c.groups;
    }
    stats.groupsAnsweredFromStats = stats.groupsTotal - stats.groupsSkippedByPredicate;
    return { values: resolved.map((a) => finish(a, rows, null, 0)), types: resolved.map((a) => a.type), stats };
  }
  // Indexed by the group's rank in storage order (a dense array: no sort to fold them in order).
  const partials: (Partial | undefined)[] = [];
  const toScan = new Set<string>();
  let rank = 0;
  snapshot.files.forEach((file, fi) =>
    file.groups.forEach((g, gi) => {
      const r = rank++;
      stats.groupsTotal++;
      const cls = bound === null ? (g.live === 0 ? 'none' : 'all') : classify(bound, g.live, (slot) => groupStats(g, bound.fields[slot]!, zoneRows));
      if (cls === 'none') {
        stats.groupsSkippedByPredicate++;
        return;
      }
      if (cls === 'all' && useStats) {
        const cols = fields.map((f) => groupStats(g, f, zoneRows));
        if (resolved.every((a) => answerable(a, cols))) {
          stats.groupsAnsweredFromStats++;
          partials[r] = { rows: g.live, cols, f8: [] };
          return;
        }
      }
      toScan.add(`${fi}:${gi}`);
    }),
  );

  if (toScan.size > 0) {
    const scan = new TableScan(store, table, snapshot, {
      columns: fields.map((f) => f.name),
      batchRows: MAX_ZONE_ROWS, // one batch per zone: float partial sums per zone, like the statistics
      ...(where !== undefined ? { where } : {}),
      groups: (f, g) => toScan.has(`${f}:${g}`),
    });
    await scan.begin();
    try {
      for (let b = await scan.next(); b !== null; b = await scan.next()) {
        if (options.interrupt !== undefined) await options.interrupt();
        const unit = scan.position.unit;
        let p = partials[unit];
        if (p === undefined) {
          p = { rows: 0, cols: fields.map(() => null), f8: fields.map(() => 0) };
          partials[unit] = p;
        }
        const sel = b.selection;
        p.rows += sel === null ? b.length : sel.length;
        for (let i = 0; i < fields.length; i++) {
          const col = sel === null ? b.columns[i]! : gather(b.columns[i]!, sel);
          const s = zoneStats(col);
          p.cols[i] = p.cols[i] === null ? s : mergeStats(fields[i]!.type, p.cols[i]!, s);
          if (needF8[i]) p.f8[i]! += float8Sum(col);
        }
      }
    } finally {
      await scan.end();
    }
    const s = scan.stats;
    stats.groupsSkippedByPredicate += s.groupsSkippedByPredicate;
    stats.groupsSkippedByBound += s.groupsSkippedByBound;
    stats.groupsRead += s.groupsRead;
    stats.zonesRead += s.zonesRead;
    stats.zonesSkippedByPredicate += s.zonesSkippedByPredicate;
    stats.zonesSkippedByBound += s.zonesSkippedByBound;
    stats.rowsRead += s.rowsRead;
    stats.rowsReturned += s.rowsReturned;
    stats.bytesRead += s.bytesRead;
  }

  // Fold the partials in storage order.
  let rows = 0;
  const totals: (ColumnStats | null)[] = fields.map(() => null);
  const f8 = fields.map(() => 0);
  for (const p of partials) {
    if (p === undefined) continue;
    rows += p.rows;
    for (let i = 0; i < fields.length; i++) {
      const c = p.cols[i];
      if (c !== null && c !== undefined) totals[i] = totals[i] === null ? c : mergeStats(fields[i]!.type, totals[i]!, c);
      f8[i]! += p.f8[i] ?? 0;
    }
  }
  return { values: resolved.map((a) => finish(a, rows, a.slot < 0 ? null : totals[a.slot]!, f8[a.slot] ?? 0)), types: resolved.map((a) => a.type), stats };
}

/** `function sum(boolean) does not exist`, as PostgreSQL says it (42883). */
function noAggregateFor(fn: string, f: Field): PaxdError {
  return undefinedFunction(`${fn}(${pgDisplayName(f.type)})`);
}

function resolve(spec: AggSpec, all: readonly Field[], fields: Field[], table: string): Resolved {
  if (spec.fn === 'count_star') return { spec, field: null, slot: -1, type: { id: 'int8' } };
  if (spec.column === undefined) throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `${spec.fn} needs a column`);
  const f = all.find((x) => x.name === spec.column);
  if (f === undefined) throw undefinedColumn(spec.column, { relation: table });
  let slot = fields.findIndex((x) => x.fieldId === f.fieldId);
  if (slot < 0) {
    fields.push(f);
    slot = fields.length - 1;
  }
  const t = f.type;
  const numeric = t.id === 'int2' || t.id === 'int4' || t.id === 'int8' || t.id === 'float4' || t.id === 'float8' || t.id === 'numeric';
  switch (spec.fn) {
    case 'count':
      return { spec, field: f, slot, type: { id: 'int8' } };
    case 'min':
    case 'max':
      if (t.id === 'bool' || t.id === 'jsonb') throw noAggregateFor(spec.fn, f);
      return { spec, field: f, slot, type: t };
    case 'sum':
      if (!numeric) throw noAggregateFor(spec.fn, f);
      return { spec, field: f, slot, type: t.id === 'int2' || t.id === 'int4' ? { id: 'int8' } : t.id === 'float4' || t.id === 'float8' ? t : { id: 'numeric' } };
    case 'avg':
      if (!numeric) throw noAggregateFor(spec.fn, f);
      return { spec, field: f, slot, type: t.id === 'float4' || t.id === 'float8' ? { id: 'float8' } : { id: 'numeric' } };
    default: {
      const never: never = spec.fn;
      throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `unknown aggregate ${String(never)}`);
    }
  }
}

/** Can the aggregate be answered from these group statistics alone? */
function answerable(a: Resolved, cols: ColumnStats[]): boolean {
  if (a.slot < 0) return true;
  const s = cols[a.slot]!;
  switch (a.spec.fn) {
    case 'count':
    case 'count_star':
      return true;
    case 'min':
      return s.minExact;
    case 'max':
      return s.maxExact;
    case 'sum':
      return s.sum !== null || s.rows === s.nulls;
    case 'avg':
      return a.field!.type.id !== 'float4' && (s.sum !== null || s.rows === s.nulls);
    default:
      return false;
  }
}

/** Statistics of a zone's matching rows, with exact min/max where the kernels keep bounds. */
function zoneStats(col: Column): ColumnStats {
  const s = computeStats(col);
  if (!s.minExact || !s.maxExact) {
    // Long strings: statistics keep truncated bounds; aggregates need the values.
    let min: Value = null;
    let max: Value = null;
    for (let i = 0; i < col.length; i++) {
      const v = getValue(col, i);
      if (v === null) continue;
      if (min === null || compareValues(col.type, v, min) < 0) min = v;
      if (max === null || compareValues(col.type, v, max) > 0) max = v;
    }
    if (col.type.id === 'bpchar') {
      min = stripSpaces(min as string);
      max = stripSpaces(max as string);
    }
    s.min = min;
    s.max = max;
    s.minExact = s.maxExact = true;
  }
  return s;
}

function stripSpaces(s: string): string {
  let e = s.length;
  while (e > 0 && s.charCodeAt(e - 1) === 0x20) e--;
  return s.slice(0, e);
}

/** Sum of a float4 column's non-NULL values in float8, in row order (float4_accum). */
function float8Sum(col: Column): number {
  const a = col.values as Float32Array;
  const v = col.validity;
  let sum = 0;
  for (let i = 0; i < col.length; i++) if (v === null || (v[i >>> 3]! & (1 << (i & 7))) !== 0) sum += a[i]!;
  return sum;
}

const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

function finish(a: Resolved, rows: number, s: ColumnStats | null, f8: number): Value {
  if (a.spec.fn === 'count_star') return BigInt(rows);
  const f = a.field!;
  const t = f.type;
  const nonNull = s === null ? 0 : s.rows - s.nulls;
  switch (a.spec.fn) {
    case 'count':
      return BigInt(nonNull);
    case 'min':
      if (s === null || nonNull === 0) return null;
      if (s.min !== null) return pad(t, s.min);
      return s.nans > 0 ? nanValue(t) : null;
    case 'max':
      if (s === null || nonNull === 0) return null;
      if (s.nans > 0) return nanValue(t);
      return pad(t, s.max);
    case 'sum':
      if (s === null || nonNull === 0) return null;
      return sumValue(t, s.sum);
    case 'avg': {
      if (s === null || nonNull === 0) return null;
      if (t.id === 'float4') return f8 / nonNull;
      if (t.id === 'float8') return (s.sum as number) / nonNull;
      return averageDecimal(sumDecimal(t, s.sum), BigInt(nonNull));
    }
    default:
      return null;
  }
}

function nanValue(t: PgType): Value {
  return t.id === 'numeric' ? 'NaN' : NaN;
}

/** bpchar(n) values are padded to n characters; statistics keep them without trailing spaces. */
function pad(t: PgType, v: Value): Value {
  if (t.id !== 'bpchar' || t.length === undefined || typeof v !== 'string') return v;
  const n = [...v].length;
  return n >= t.length ? v : v + ' '.repeat(t.length - n);
}

function sumDecimal(t: PgType, sum: ColumnStats['sum']): DecimalValue {
  if (typeof sum === 'string') return parseDecimalValue(sum);
  const coef = sum as bigint;
  return { kind: 'finite', coef, scale: isDecimal128(t) ? (t.scale ?? 0) : 0 };
}

function sumValue(t: PgType, sum: ColumnStats['sum']): Value {
  switch (t.id) {
    case 'int2':
    case 'int4': {
      const v = sum as bigint;
      if (v < INT8_MIN || v > INT8_MAX) throw new PaxdError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'bigint out of range');
      return v;
    }
    case 'float4':
    case 'float8':
      return sum as number;
    default:
      return formatDecimalValue(sumDecimal(t, sum));
  }
}
