/**
 * GROUPING SETS, ROLLUP and CUBE over the hash aggregate (PostgreSQL's MixedAggregate, all
 * sets hashed): one pass over the input feeds one HashAggregate per grouping set
 * (../hash-aggregate.ts), each grouping by the set's keys with the others held NULL and the
 * set's number as its last key (../../ir.ts GroupingSetList), so every set's groups come out in
 * the query's one post-aggregation layout: keys, set number, aggregates. The empty set `()` is
 * an aggregate without keys, which has its one row even over no input, as in PostgreSQL.
 */
import type { Value } from '../../../types/index.js';
import type { AggCall, GroupingSetList } from '../../ir.js';
import { type Expr, E } from '../../expr.js';
import { T } from '../../types.js';
import type { RowBatch } from '../batch.js';
import { HashAggregate } from '../hash-aggregate.js';

/** What the executor asks of an aggregate (./hash-aggregate.ts or this one). */
export type Aggregator = Pick<HashAggregate, 'add' | 'batches'>;

/** The aggregate of a query's grouping: per grouping set when it has sets. */
export function aggregateOf(g: { readonly keys: readonly Expr[]; readonly aggs: readonly AggCall[]; readonly sets?: GroupingSetList }): Aggregator {
  return g.sets === undefined ? new HashAggregate(g.keys, g.aggs) : new GroupingSetsAggregate(g.keys, g.aggs, g.sets);
}

interface Part {
  readonly agg: HashAggregate;
  /** The empty set: its aggregate has no keys; the keys' NULLs and the set number are added to its row. */
  readonly empty: boolean;
}

export class GroupingSetsAggregate implements Aggregator {
  private readonly parts: readonly Part[];
  private readonly gid: number;

  constructor(keys: readonly Expr[], aggs: readonly AggCall[], sets: GroupingSetList) {
    this.gid = keys.length - 1;
    this.parts = sets.map((set, s): Part => {
      if (set.length === 0) return { agg: new HashAggregate([], aggs), empty: true };
      const own = keys.map((k, i) => (i === this.gid ? E.const(s, T.int4) : set.includes(i) ? k : E.const(null, k.type)));
      return { agg: new HashAggregate(own, aggs), empty: false };
    });
  }

  async add(b: RowBatch): Promise<void> {
    for (const p of this.parts) await p.agg.add(b);
  }

  async *batches(): AsyncGenerator<RowBatch> {
    for (const [s, p] of this.parts.entries()) {
      for await (const b of p.agg.batches()) {
        if (!p.empty) {
          yield b;
          continue;
        }
        const nulls = (): Value[] => new Array<Value>(b.rows).fill(null);
        const keys = Array.from({ length: this.gid }, nulls);
        yield { rows: b.rows, cols: [...keys, new Array<Value>(b.rows).fill(s), ...b.cols] };
      }
    }
  }
}

/** EXPLAIN's node for grouping sets, as PostgreSQL prints an all-hashed one: a Hash Key per set, `Group Key: ()` for the empty set. */
export function describeGroupingSets(sets: GroupingSetList, keyNames: readonly string[]): { name: string; details: string[] } {
  const details = sets.map((set) => (set.length === 0 ? 'Group Key: ()' : `Hash Key: ${set.map((i) => keyNames[i]!).join(', ')}`));
  return { name: sets.some((s) => s.length === 0) ? 'MixedAggregate' : 'HashAggregate', details };
}
