/**
 * The rows of the postgres_fdw end-to-end suite (fixtures/fdw/tables.sql), as INSERT
 * statements that paxd and PostgreSQL both run, so both hold the same values: generated
 * rows with NULLs sprinkled over every column, an all-NULL row (id -1), and rows of special
 * values — NaN, ±Infinity, integer minimums and maximums, infinite dates and timestamps,
 * quotes/backslash/tab/newline/é text, empty strings and bytea (ids 0, -2, -3).
 */

export const TYPES_ROWS = 1000;
export const CUSTOMERS = 200;
export const ORDERS = 3000;

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function isoDay(days: number): string {
  const d = new Date(Date.UTC(2024, 0, 1) + days * 86_400_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

function isoTime(seconds: number, fraction = ''): string {
  const d = new Date(Date.UTC(2024, 0, 1) + seconds * 1000);
  return `${isoDay(Math.floor((d.getTime() - Date.UTC(2024, 0, 1)) / 86_400_000))} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${fraction}`;
}

function hex(n: number, bytes: number): string {
  return (n >>> 0).toString(16).padStart(bytes * 2, '0').slice(-bytes * 2);
}

const WORDS = ['foo', 'Bar', 'baz', 'Qux', 'éclair'];

/** One generated t_types row as SQL literals (18 columns). */
function typesRow(i: number): string[] {
  const v = [
    String(i),
    String(((i * 7) % 600) - 300),
    String((i * 7) % 1000),
    String(((i * 1_000_003) % 9_999_991) * 1000 - 5_000_000_000),
    `'${i * 0.25 - 100}'`,
    `'${i / 7}'`,
    `${Math.floor(((i * 137) % 100_000) / 100)}.${pad((i * 137) % 100)}`,
    `${i % 97}.${String((i * 7919) % 100_000).padStart(5, '0')}`,
    lit(`text ${i} ${WORDS[i % WORDS.length]}`),
    lit(`vc${i % 37}`),
    lit(`b${i % 9}`),
    i % 3 === 0 ? 'true' : 'false',
    lit(isoDay(i % 400)),
    lit(isoTime(i * 3607, i % 2 === 0 ? '.5' : '')),
    lit(isoTime(i * 5003) + '+00'),
    lit(`\\x${hex(i * 2_654_435_761, 4)}`),
    lit(`${hex(i * 2_654_435_761, 4)}-${hex(i, 2)}-4${hex(i * 7, 2).slice(1)}-8${hex(i * 13, 2).slice(1)}-${hex(i * 31, 2)}${hex(i * 977, 4)}`),
    lit(JSON.stringify({ k: i % 5, s: `v${i % 3}` })),
  ];
  // NULLs on a diagonal: every column is NULL in some rows, never id.
  for (let c = 1; c < v.length; c++) if ((i + c * 11) % 53 === 0) v[c] = 'NULL';
  return v;
}

const SPECIAL: string[][] = [
  // id 0: minimums, NaN, -Infinity, the hard text
  [
    '0', '-32768', '-2147483648', '-9223372036854775808', "'NaN'", "'-Infinity'", '-0.01', "'NaN'",
    lit("quote ' backslash \\ tab\t nl\n unicode é"), "''", "''", 'false', "'-infinity'", "'-infinity'", "'-infinity'",
    "'\\x00ff'", "'00000000-0000-0000-0000-000000000000'", `'{"a": [1, "x"], "b": null}'`,
  ],
  // id -1: all NULL
  ['-1', ...Array.from({ length: 17 }, () => 'NULL')],
  // id -2: maximums, +Infinity, empty strings and bytea
  [
    '-2', '32767', '2147483647', '9223372036854775807', "'Infinity'", "'Infinity'", '9999999999.99', '123456789012345678901234567890.123456789',
    "''", "''", "'     '", 'true', "'infinity'", "'infinity'", "'infinity'", "'\\x'", "'ffffffff-ffff-ffff-ffff-ffffffffffff'", "'[]'",
  ],
  // id -3: zeros and negative zero, a percent and underscore for LIKE, a leading-space string
  [
    '-3', '0', '0', '0', "'-0'", "'0'", '0.00', '0', lit('100% _under_ score'), lit(' lead'), lit('x'), 'false', "'2000-02-29'",
    "'1999-12-31 23:59:59.999999'", "'2000-01-01 00:00:00+00'", "'\\x00'", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'{}'",
  ],
];

function inserts(table: string, rows: string[][], chunk = 500): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += chunk) out.push(`INSERT INTO ${table} VALUES ${rows.slice(i, i + chunk).map((r) => `(${r.join(', ')})`).join(', ')}`);
  return out;
}

const REGIONS = ['north', 'south', 'east', 'west', null];
const STATUS = ['new', 'paid', 'shipped', 'cancelled'];

/** The INSERT statements, table by table. */
export function dataStatements(): string[] {
  const types = [...SPECIAL, ...Array.from({ length: TYPES_ROWS }, (_, k) => typesRow(k + 1))];
  const customers = Array.from({ length: CUSTOMERS }, (_, k) => {
    const i = k + 1;
    const r = REGIONS[i % REGIONS.length];
    return [String(i), lit(`cust${i}`), r === null ? 'NULL' : lit(r!)];
  });
  const orders = Array.from({ length: ORDERS }, (_, k) => {
    const i = k + 1;
    return [
      String(i),
      i % 97 === 0 ? 'NULL' : String(((i * 37) % 220) + 1),
      i % 89 === 0 ? 'NULL' : `${Math.floor(((i * 991) % 150_000) / 100)}.${pad((i * 991) % 100)}`,
      lit(STATUS[i % STATUS.length]!),
      lit(isoTime(i * 613) + '+00'),
    ];
  });
  return [...inserts('t_types', types), ...inserts('t_customers', customers), ...inserts('t_orders', orders)];
}
