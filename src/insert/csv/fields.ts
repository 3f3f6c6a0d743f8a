/**
 * Typed field parsers: one loop per column kind over a tokenized block (./tokenizer.ts), writing
 * values straight into the batch's buffers (./columns.ts) — no string, object or closure per
 * field on the fast paths.
 *
 * Each fast path accepts only the plainest spelling of its type (`-123`, `12.50`,
 * `1998-01-02`, `1998-01-02 03:04:05.123456`, `t`) and hands anything else — whitespace,
 * exponents, too many digits, out-of-range parts, `infinity`, errors — to parseText
 * (../../types/text-io.ts) on the decoded string, so values, messages and SQLSTATEs are
 * always PostgreSQL's. Tests check every fast path against parseText.
 *
 * Rows are written at consecutive indexes from `base`, skipping rows the block has marked bad.
 * A row that fails here is marked bad through the context; the block is then parsed again
 * without it (the reader's job), so a bad row never shifts or poisons its neighbours.
 *
 * One file per family in ./fields/ (integers, float, bool, decimal, numeric, datetime,
 * strings, generic), each loop written out for its type rather than one loop calling a parser per
 * value: the loops share a shape (skip bad rows, NULL, fast path, else slowField), and that
 * repetition is what keeps V8's inner loops monomorphic and free of closure calls (STYLE.md
 * "Hot paths"). What they share is in ./fields/block.ts.
 */
import { unreachable } from '../../types/index.js';
import { type ColumnBuffer, FastPath } from './columns.js';
import type { BlockContext } from './fields/block.js';
import { int2Loop, int4Loop, int8Loop } from './fields/integers.js';
import { floatLoop } from './fields/float.js';
import { boolLoop } from './fields/bool.js';
import { decimalLoop } from './fields/decimal.js';
import { numericTextLoop } from './fields/numeric.js';
import { dateLoop, timestampLoop } from './fields/datetime.js';
import { textLoop, varcharLoop, bpcharLoop } from './fields/strings.js';
import { genericLoop } from './fields/generic.js';

export type { BlockContext };

/** Parses input position p of the block into `col`, rows from `base`; returns the next row index. */
export function parseColumn(ctx: BlockContext, col: ColumnBuffer, p: number, base: number): number {
  switch (col.kind) {
    case FastPath.Int2:
      return int2Loop(ctx, col, p, base);
    case FastPath.Int4:
      return int4Loop(ctx, col, p, base);
    case FastPath.Int8:
      return int8Loop(ctx, col, p, base);
    case FastPath.Float4:
    case FastPath.Float8:
      return floatLoop(ctx, col, p, base);
    case FastPath.Bool:
      return boolLoop(ctx, col, p, base);
    case FastPath.Decimal:
      return decimalLoop(ctx, col, p, base);
    case FastPath.NumericText:
      return numericTextLoop(ctx, col, p, base);
    case FastPath.Date:
      return dateLoop(ctx, col, p, base);
    case FastPath.Timestamp:
    case FastPath.Timestamptz:
      return timestampLoop(ctx, col, p, base);
    case FastPath.Text:
      return textLoop(ctx, col, p, base);
    case FastPath.Varchar:
      return varcharLoop(ctx, col, p, base);
    case FastPath.Bpchar:
      return bpcharLoop(ctx, col, p, base);
    case FastPath.Generic:
      return genericLoop(ctx, col, p, base);
    default:
      return unreachable(col.kind);
  }
}
