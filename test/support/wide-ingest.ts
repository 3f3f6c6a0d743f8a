/**
 * Child process for the memory test: creates a table of COLS int8 columns and ingests ROWS
 * rows in batches of 1,024 generated on the fly, then prints {"maxRssMB": …}.
 *
 *   node --import tsx test/support/wide-ingest.ts DATA COLS ROWS
 */
import { Database } from '../../src/table/database.js';
import type { Column } from '../../src/types/column.js';

const [data, colsArg, rowsArg] = process.argv.slice(2);
const cols = Number(colsArg);
const rows = Number(rowsArg);
const db = await Database.open(data);
const t = await db.createTable(
  'wide',
  Array.from({ length: cols }, (_, i) => ({ name: `c${i}`, type: 'int8' })),
  // Rows per group high enough that the byte budget, not the row count, cuts both tables' groups.
  { rowGroupRows: 1 << 22 },
);
const sink = t.sink();
for (let at = 0; at < rows; at += 1024) {
  const n = Math.min(1024, rows - at);
  const columns: Column[] = [];
  for (let c = 0; c < cols; c++) {
    const v = new BigInt64Array(n);
    for (let i = 0; i < n; i++) v[i] = BigInt((at + i) * 31 + c);
    columns.push({ type: { id: 'int8' }, length: n, nullCount: 0, validity: null, values: v, offsets: null, data: null });
  }
  await sink.write({ length: n, columns, selection: null });
}
const r = await sink.commit();
await db.close();
process.stdout.write(JSON.stringify({ maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024), rows: r.rows, groups: r.groups }) + '\n');
