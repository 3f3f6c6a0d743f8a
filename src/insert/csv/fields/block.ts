/**
 * What every CSV/text field parser (./<family>.ts) shares: the block being parsed, the
 * general path through parseText, NULLs and NOT NULL, int64 words.
 */
import { type TimeZone, type Value, PaxdError, parseText } from '../../../types/index.js';
import type { ColumnBuffer } from '../columns.js';
import type { CsvTokenizer } from '../tokenizer.js';

/** What a field parser needs from the block being parsed. */
export interface BlockContext {
  readonly tok: CsvTokenizer;
  /** The bytes the tokenizer saw (FIELD_PLAIN offsets point here). */
  readonly buf: Buffer;
  /** Per record: 0 = good so far; anything else asks skip(). */
  readonly bad: Uint8Array;
  /** The block's bytes are all ASCII (characters = bytes). */
  readonly ascii: boolean;
  /** Called for a record with bad[r] !== 0 at input position p; true = leave the row out. */
  skip(r: number, p: number): boolean;
  /** Field p of record r does not parse. */
  fail(r: number, p: number, e: PaxdError): void;
  /** The zone timestamptz fields without an offset are read in (COPY FROM in a session's TimeZone). */
  readonly timeZone: TimeZone;
  /** Record r has a NULL in a NOT NULL column (checked after all its fields, as PostgreSQL does). */
  nullInNotNull(r: number, col: ColumnBuffer): void;
}

export const MINUS = 45;
export const PLUS = 43;
export const DOT = 46;
export const SPACE = 32;
export const TWO32 = 4294967296;
export const TWO53 = 9007199254740992;
export const P10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** The general path: parseText on the decoded field. false (and the row marked bad) on error. */
export function slowField(ctx: BlockContext, col: ColumnBuffer, src: Buffer, s: number, e: number, r: number, p: number, o: number): boolean {
  let v: Value;
  try {
    v = parseText(col.field.type, src.toString('utf8', s, e), ctx.timeZone);
  } catch (err) {
    if (err instanceof PaxdError) {
      ctx.fail(r, p, err);
      return false;
    }
    throw err;
  }
  col.writeValue(o, v);
  return true;
}

export function nullAt(ctx: BlockContext, col: ColumnBuffer, r: number, o: number): void {
  col.setNull(o);
  if (col.field.notNull) ctx.nullInNotNull(r, col);
}

/** Writes an integer-valued double |x| < 2^53 as int64 words (no BigInt). */
export function putI64(w: Int32Array, o: number, x: number): void {
  const hi = Math.floor(x / TWO32);
  w[2 * o] = (x - hi * TWO32) | 0;
  w[2 * o + 1] = hi | 0;
}
