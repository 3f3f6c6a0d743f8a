/**
 * The `ctid` system column: where a row lives in a pinned snapshot, in PostgreSQL's tid
 * text form `(block,offset)`, so postgres_fdw's update path (`SELECT …, ctid … FOR UPDATE`,
 * then `UPDATE … WHERE ctid = $1`) can name rows. A row is (unit, row): `unit` is the
 * group's storage rank (its index when the snapshot's groups are listed file by file,
 * ./reader.ts BatchPosition.unit) and `row` its position in the group. PostgreSQL's offset is
 * 16 bits and starts at 1, so the low 15 bits of the position go to the offset and the rest
 * to the block:
 *
 *   block  = unit * 512 + (row >>> 15)        (rows per group ≤ 2^24, so row >>> 15 < 512)
 *   offset = (row & 0x7fff) + 1
 *
 *   formatCtid(3, 40000)  // '(1537,7233)'
 *   parseCtid('(1537,7233)')  // { unit: 3, row: 40000 }
 *
 * A ctid is stable for as long as its snapshot is pinned (a statement, or a transaction
 * block): appends add groups after the existing ones and deletes only mark rows, so the
 * ranks of the pinned groups do not move. Compaction rewrites groups, so a ctid read before
 * a compaction names nothing after it (as a heap ctid after VACUUM FULL).
 */
export const CTID_ROW_BITS = 15;
const ROW_MASK = (1 << CTID_ROW_BITS) - 1;
const BLOCKS_PER_UNIT = 512; // 2^24 rows per group / 2^15 rows per block
export const MAX_CTID_UNITS = Math.floor(0xffffffff / BLOCKS_PER_UNIT);

export interface RowId {
  readonly unit: number;
  readonly row: number;
}

export function ctidBlock(unit: number, row: number): number {
  return unit * BLOCKS_PER_UNIT + (row >>> CTID_ROW_BITS);
}

export function ctidOffset(row: number): number {
  return (row & ROW_MASK) + 1;
}

export function formatCtid(unit: number, row: number): string {
  return `(${ctidBlock(unit, row)},${ctidOffset(row)})`;
}

/** The row a tid names, or null when the text is not a tid PostgreSQL's tidin would accept or names no paxd row. */
export function parseCtid(text: string): RowId | null {
  const m = /^\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)\s*$/.exec(text);
  if (m === null) return null;
  const block = Number(m[1]);
  const offset = Number(m[2]);
  if (!Number.isSafeInteger(block) || block > 0xffffffff || offset < 1 || offset > ROW_MASK + 1) return null;
  const unit = Math.floor(block / BLOCKS_PER_UNIT);
  const row = ((block % BLOCKS_PER_UNIT) << CTID_ROW_BITS) | (offset - 1);
  return { unit, row };
}

/** True for text of tid's shape `(n,n)` (the input PostgreSQL's tidin accepts), whether or not a row has it. */
export function isTidText(text: string): boolean {
  return /^\s*\(\s*\d+\s*,\s*\d+\s*\)\s*$/.test(text);
}
