/**
 * Cost and row estimates for EXPLAIN (docs/MIRROR.md): postgres_fdw with `use_remote_estimate`
 * sends `EXPLAIN <deparsed SELECT>` and reads the first line's `(cost=S..T rows=R width=W)`
 * (docs postgres_fdw.md §4.4), feeding PostgreSQL's planner. The numbers must make the
 * planner push work into paxd, so they are in PostgreSQL's units but with paxd's economics:
 *
 *   a row group answered from its statistics   0.0001
 *   a row read (decoded and examined)          0.001
 *   a row returned by a node                   0.01
 *   an operator applied to a row               0.0025
 *
 * Rows come from the snapshot's statistics: groups the pushed predicate's zone maps rule out
 * count nothing; in the others the predicate's selectivity is estimated from the group's
 * min/max (the fraction of the range a comparison keeps, 1/ndv for equality with ndv bounded
 * by the range of integer-like columns); each residual conjunct keeps a third (PostgreSQL's
 * DEFAULT_INEQ_SEL). Widths are PostgreSQL's typlen for fixed-width types, 32 otherwise.
 */
import type { Table } from '../table/index.js';
import { type Field, type PgType, type Value, isDecimal128, unreachable } from '../types/index.js';
import { bindPredicate, classify, type Predicate, type BoundPredicate, type Node as PredNode, groupStats } from '../scan/index.js';
import type { ColumnStats } from '../stats/index.js';
import { type Expr, conjuncts } from './expr.js';

export interface Cost {
  readonly startup: number;
  readonly total: number;
  readonly rows: number;
  readonly width: number;
}

export const COST = Object.freeze({ statsGroup: 0.0001, readRow: 0.001, returnRow: 0.01, operator: 0.0025 });

/** PostgreSQL's DEFAULT_INEQ_SEL: what a condition the statistics cannot judge keeps. */
const DEFAULT_SEL = 1 / 3;
/** PostgreSQL's DEFAULT_EQ_SEL. */
const DEFAULT_EQ_SEL = 0.005;
/** PostgreSQL's DEFAULT_NUM_DISTINCT: the distinct values of a key nothing bounds. */
const DEFAULT_NDV = 200;

/** The width of a value of `t` in bytes, as PostgreSQL's EXPLAIN counts it. */
export function typeWidth(t: PgType): number {
  switch (t.id) {
    case 'bool':
      return 1;
    case 'int2':
      return 2;
    case 'int4':
    case 'float4':
    case 'date':
      return 4;
    case 'int8':
    case 'float8':
    case 'timestamp':
    case 'timestamptz':
      return 8;
    case 'numeric':
      return 8;
    case 'uuid':
    case 'interval':
      return 16;
    case 'bpchar':
    case 'varchar':
      return t.length !== undefined ? Math.min(t.length + 1, 32) : 32;
    default:
      return 32;
  }
}

export function widthOf(types: readonly PgType[]): number {
  let w = 0;
  for (const t of types) w += typeWidth(t);
  return w;
}

/** What a scan of `table` with a pushed predicate and a residual filter reads and returns. */
export interface ScanEstimate {
  readonly rowsRead: number;
  readonly rowsOut: number;
  readonly groupsAnswered: number;
  /** Rows of the groups answered from statistics (counted in rowsOut, never read). */
  readonly rowsFromStats: number;
}

/** Where a column of a residual filter is stored, for its range. */
export interface ColumnSource {
  readonly table: Table;
  readonly field: Field;
}

const FLIP: Readonly<Record<string, string>> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/**
 * The fraction of rows a residual filter keeps: `col = x` keeps 1/ndv(col) (postgres_fdw's
 * parameter placeholders are such comparisons), `col < const` (numeric(p,s) columns, which
 * the scan does not take) the part of the column's range below the constant, any other
 * conjunct a third.
 */
export function residualSelectivity(residual: Expr | null, ndv: (column: Expr) => number, sourceOf?: (column: Expr) => ColumnSource | undefined): number {
  if (residual === null) return 1;
  let sel = 1;
  for (const c of conjuncts(residual)) sel *= conjunctSelectivity(c, ndv, sourceOf);
  return sel;
}

function conjunctSelectivity(c: Expr, ndv: (column: Expr) => number, sourceOf?: (column: Expr) => ColumnSource | undefined): number {
  if (c.kind !== 'cmp') return DEFAULT_SEL;
  const bare = (e: Expr): Expr | null => (e.kind === 'column' ? e : e.kind === 'cast' && e.arg.kind === 'column' ? e.arg : null);
  let col = bare(c.left);
  let other = c.right;
  let op: string = c.op;
  if (col === null) {
    col = bare(c.right);
    other = c.left;
    op = FLIP[op]!;
  }
  if (col === null) return DEFAULT_SEL;
  if (op === '=') return 1 / Math.max(1, ndv(col));
  if (op === '<>') return 1 - 1 / Math.max(1, ndv(col));
  const src = sourceOf?.(col);
  const v = other.kind === 'const' ? asNumber(other.value) : null;
  if (src === undefined || v === null) return DEFAULT_SEL;
  const r = columnRange(src.table, src.field);
  if (r === null) return DEFAULT_SEL;
  if (r.hi === r.lo) return (op === '<' && r.lo < v) || (op === '<=' && r.lo <= v) || (op === '>' && r.lo > v) || (op === '>=' && r.lo >= v) ? 1 : 0;
  const below = Math.min(1, Math.max(0, (v - r.lo) / (r.hi - r.lo)));
  return op === '<' || op === '<=' ? below : 1 - below;
}

/** The smallest and largest value of a column over the table, as numbers (numeric(p,s) scaled); null when unknown. */
function columnRange(table: Table, field: Field): { lo: number; hi: number } | null {
  const scale = isDecimal128(field.type) ? 10 ** (field.type.scale ?? 0) : 1;
  let lo: number | null = null;
  let hi: number | null = null;
  const snap = table.snapshot;
  for (const f of snap.files)
    for (const g of f.groups) {
      if (g.live === 0) continue;
      const st = groupStats(g, field, snap.options.zoneRows);
      const a = asNumber(st.min);
      const b = asNumber(st.max);
      if (a === null || b === null) continue;
      lo = lo === null ? a / scale : Math.min(lo, a / scale);
      hi = hi === null ? b / scale : Math.max(hi, b / scale);
    }
  return lo === null || hi === null ? null : { lo, hi };
}

export function estimateScan(table: Table, where: Predicate | undefined, residualSel: number, fromStats: boolean): ScanEstimate {
  const snap = table.snapshot;
  const bound = where === undefined ? null : bindPredicate(where, table.fields, table.name);
  let rowsRead = 0;
  let rowsOut = 0;
  let groupsAnswered = 0;
  let rowsFromStats = 0;
  for (const f of snap.files)
    for (const g of f.groups) {
      if (g.live === 0) continue;
      const cache: (ColumnStats | undefined)[] = [];
      const statsOf = (slot: number): ColumnStats => (cache[slot] ??= groupStats(g, bound!.fields[slot]!, snap.options.zoneRows));
      const cls = bound === null ? 'all' : classify(bound, g.live, statsOf);
      if (cls === 'none') continue;
      if (cls === 'all') {
        if (fromStats) {
          groupsAnswered++;
          rowsFromStats += g.live;
        } else rowsRead += g.live;
        rowsOut += g.live;
        continue;
      }
      rowsRead += g.live;
      rowsOut += g.live * selectivity(bound!, bound!.root, statsOf);
    }
  rowsOut *= residualSel;
  return { rowsRead, rowsOut, groupsAnswered, rowsFromStats };
}

/** The cost of a scan node returning `width`-byte rows. */
export function scanCost(e: ScanEstimate, width: number): Cost {
  const total = e.groupsAnswered * COST.statsGroup + e.rowsRead * COST.readRow + Math.max(0, e.rowsOut - e.rowsFromStats) * COST.returnRow;
  return { startup: 0, total, rows: e.rowsOut, width };
}

/** The fraction of a group's rows a bound predicate keeps, from the group's statistics. */
function selectivity(bp: BoundPredicate, n: PredNode, statsOf: (slot: number) => ColumnStats): number {
  switch (n.kind) {
    case 'never':
      return 0;
    case 'null': {
      const s = statsOf(n.slot);
      const f = s.rows === 0 ? 0 : s.nulls / s.rows;
      return n.negated ? 1 - f : f;
    }
    case 'cmp': {
      const s = statsOf(n.slot);
      const nonNull = s.rows === 0 ? 0 : (s.rows - s.nulls) / s.rows;
      return nonNull * cmpSelectivity(bp.fields[n.slot]!, n.op, n.value, s);
    }
    case 'and': {
      let p = 1;
      for (const a of n.args) p *= selectivity(bp, a, statsOf);
      return p;
    }
    case 'or': {
      let q = 1;
      for (const a of n.args) q *= 1 - selectivity(bp, a, statsOf);
      return 1 - q;
    }
    case 'in':
      return inSelectivity(bp.fields[n.slot]!, n.values, n.negated, statsOf(n.slot));
    default:
      return unreachable(n);
  }
}

function asNumber(v: Value): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return Number(v);
  // Numeric text (the engine's numeric constants, unconstrained numeric statistics).
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return null;
}

const INTEGRAL = new Set(['int2', 'int4', 'int8', 'date', 'bool']);

function cmpSelectivity(f: Field, op: string, value: Value, s: ColumnStats): number {
  const nonNull = s.rows - s.nulls;
  const v = asNumber(value);
  const lo = asNumber(s.min);
  const hi = asNumber(s.max);
  const eq = (): number => {
    if (v === null || lo === null || hi === null) return Math.max(DEFAULT_EQ_SEL, nonNull > 0 ? 1 / nonNull : 1);
    if (v < lo || v > hi) return 0;
    if (lo === hi) return 1;
    const ndv = INTEGRAL.has(f.type.id) ? Math.min(nonNull, hi - lo + 1) : nonNull;
    return 1 / Math.max(1, ndv);
  };
  switch (op) {
    case '=':
      return eq();
    case '<>':
      return 1 - eq();
    default: {
      if (v === null || lo === null || hi === null) return DEFAULT_SEL;
      if (hi === lo) return (op === '<' && lo < v) || (op === '<=' && lo <= v) || (op === '>' && lo > v) || (op === '>=' && lo >= v) ? 1 : 0;
      const below = Math.min(1, Math.max(0, (v - lo) / (hi - lo)));
      return op === '<' || op === '<=' ? below : 1 - below;
    }
  }
}

/**
 * `x [NOT] IN (values)` (sorted, ../scan/predicate.ts): the listed values within the group's
 * [min, max] (two binary searches), each as selective as `x = value`, as the OR of them would
 * be without a walk over every value of every group.
 */
function inSelectivity(f: Field, values: readonly Exclude<Value, null>[], negated: boolean, s: ColumnStats): number {
  const nonNull = s.rows === 0 ? 0 : (s.rows - s.nulls) / s.rows;
  const lo = asNumber(s.min);
  const hi = asNumber(s.max);
  let inRange = values.length;
  let probe: Value = values[0]!;
  if (lo !== null && hi !== null && asNumber(probe) !== null) {
    const first = (bound: number, strict: boolean): number => {
      let a = 0;
      let b = values.length;
      while (a < b) {
        const m = (a + b) >>> 1;
        const v = asNumber(values[m]!) ?? Number.NaN;
        if (v < bound || (strict && v === bound)) a = m + 1;
        else b = m;
      }
      return a;
    };
    const from = first(lo, false);
    inRange = first(hi, true) - from;
    probe = values[Math.min(from, values.length - 1)]!;
  }
  const p = inRange <= 0 ? 0 : Math.min(1, inRange * cmpSelectivity(f, '=', probe, s));
  return nonNull * (negated ? 1 - p : p);
}

/** Distinct values of a bare column over the whole table: bounded by its range when integer-like, else DEFAULT_NDV. */
export function columnDistinct(table: Table, field: Field, rows: number): number {
  if (field.type.id === 'bool') return Math.min(2, Math.max(1, rows));
  if (!INTEGRAL.has(field.type.id)) return Math.max(1, Math.min(DEFAULT_NDV, rows));
  const r = columnRange(table, field);
  if (r === null) return Math.max(1, Math.min(DEFAULT_NDV, rows));
  return Math.max(1, Math.min(rows, r.hi - r.lo + 1));
}

/** Groups of a GROUP BY whose keys have `ndvs` distinct values each, over `rows` rows. */
export function groupCount(ndvs: readonly number[], rows: number): number {
  let g = 1;
  for (const n of ndvs) g *= n;
  return Math.max(rows > 0 ? 1 : 0, Math.min(rows, g));
}

export const DEFAULT_DISTINCT = DEFAULT_NDV;

/** An aggregate over `input` producing `groups` rows of `width` bytes, `perRow` operators per input row. */
export function aggregateCost(input: Cost, groups: number, width: number, perRow: number): Cost {
  const startup = input.total + input.rows * COST.operator * perRow;
  return { startup, total: startup + groups * COST.returnRow, rows: groups, width };
}

/**
 * A sort of the input; `bound` (LIMIT + OFFSET) makes it a top-N heap sort when it keeps
 * fewer than half the rows, priced as PostgreSQL's cost_sort does (N · log2(2 · bound)
 * comparisons instead of N · log2 N), so the planner sends ORDER BY … LIMIT here.
 */
export function sortCost(input: Cost, bound: number | null = null): Cost {
  const n = Math.max(input.rows, 2);
  const heap = bound !== null && bound > 0 && input.rows > 2 * bound;
  const startup = input.total + 2 * COST.operator * n * Math.log2(heap ? 2 * bound : n);
  return { startup, total: startup + input.rows * COST.operator, rows: input.rows, width: input.width };
}

export function limitCost(input: Cost, limit: number | null, offset: number): Cost {
  const rows = Math.max(0, Math.min(limit ?? Infinity, input.rows - offset));
  const per = input.rows > 0 ? (input.total - input.startup) / input.rows : 0;
  const startup = input.startup + per * Math.min(offset, input.rows);
  return { startup, total: startup + per * rows, rows, width: input.width };
}

/** `(cost=S..T rows=R width=W)` as PostgreSQL prints it (rows clamped to at least 1). */
export function formatCost(c: Cost): string {
  return `(cost=${c.startup.toFixed(2)}..${c.total.toFixed(2)} rows=${Math.max(1, Math.round(c.rows))} width=${Math.round(c.width)})`;
}
