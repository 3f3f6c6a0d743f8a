/**
 * Running bounds (DESIGN.md "The source contract"): a consumer — a top-N sort whose heap is
 * full — tells an open reader which rows can still matter, e.g. `ts > 1700000000000000` for
 * ORDER BY ts DESC LIMIT n. From then on the reader skips every group and zone whose
 * statistics prove no row can beat the bound (./prune.ts says 'none'), and drops rows that do
 * not beat it from its batches (a compiled predicate, ./compile.ts).
 *
 * A bound is a predicate on one bare column of the stored type. Setting a bound on a column
 * replaces that column's previous one (bounds only tighten in a well-behaved consumer, but
 * the reader does not rely on it); bounds on several columns all apply.
 *
 * The rules for pushing one are the consumer's (./topn.ts): only once its heap holds
 * LIMIT + OFFSET rows, strict (>) only when a row tying the worst can never displace it,
 * inclusive (>=) otherwise, and with NULLs admitted when the query's NULL ordering puts them
 * before the worst row.
 */
import type { Value, Field } from '../types/index.js';
import { P, type Predicate, type BoundPredicate, bindPredicate } from './predicate.js';
import { compilePredicate, type CompiledPredicate } from './compile.js';

export type BoundOp = '<' | '<=' | '>' | '>=';

export interface BoundOptions {
  /** NULLs beat the bound too (a NULLS FIRST ordering). */
  orNull?: boolean;
}

/**
 * The predicate of a bound. `value` null means the worst row's key is NULL: the bound then
 * admits only NULLs (`orNull`) or only non-NULLs.
 *
 *   boundPredicate('ts', '>', 10n)                    // ts > 10
 *   boundPredicate('ts', '>=', 10n, { orNull: true }) // ts >= 10 OR ts IS NULL
 */
export function boundPredicate(column: string, op: BoundOp, value: Value, opts: BoundOptions = {}): Predicate {
  if (value === null) return opts.orNull ? P.isNull(column) : P.isNotNull(column);
  const c = op === '<' ? P.lt(column, value) : op === '<=' ? P.le(column, value) : op === '>' ? P.gt(column, value) : P.ge(column, value);
  return opts.orNull ? P.or(c, P.isNull(column)) : c;
}

/** The bounds set on a reader, bound to its fields and compiled. */
export class RunningBounds {
  private readonly byColumn = new Map<string, Predicate>();
  private bound: BoundPredicate | null = null;
  private compiled: CompiledPredicate | null = null;
  /** Incremented on every change, so cached decisions can be invalidated. */
  version = 0;

  constructor(
    private readonly fields: readonly Field[],
    private readonly table: string,
  ) {}

  set(column: string, p: Predicate): void {
    this.byColumn.set(column, p);
    const all = [...this.byColumn.values()];
    this.bound = bindPredicate(all.length === 1 ? all[0]! : P.and(...all), this.fields, this.table);
    this.compiled = null;
    this.version++;
  }

  clear(): void {
    this.byColumn.clear();
    this.bound = null;
    this.compiled = null;
    this.version++;
  }

  get predicate(): BoundPredicate | null {
    return this.bound;
  }

  get evaluator(): CompiledPredicate | null {
    if (this.bound === null) return null;
    return (this.compiled ??= compilePredicate(this.bound));
  }
}
