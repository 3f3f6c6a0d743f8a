/**
 * Schema inference for `paxd ingest --create` (README.md "Usage"): column names and types from a sample
 * of the input. Columns are never NOT NULL.
 *
 *   const input = await openInput('trades.csv');
 *   const { columns } = await inferSchema('csv', input, { csv: { header: true } });
 *   // [{ name: 'id', type: { id: 'int4' } }, { name: 'price', type: { id: 'numeric' } }, …]
 *   formatColumns(columns);   // 'id int4, price numeric, …'
 *
 * CSV and NDJSON: the first 10,000 rows or 1 MiB, whichever comes first. Each column gets the
 * first type of this list that reads every non-NULL sampled value (NULLs constrain nothing; a
 * column of NULLs only is text):
 *
 *   bool        true/false/t/f (any case)
 *   int4, int8  integer literals in range
 *   numeric     decimal literals (too big for int8, or with fraction digits; exact)
 *   float8      when some value has an exponent or is inf/infinity/nan
 *   date        ISO 8601 dates, 2024-01-31
 *   timestamp   ISO 8601 date and time without offset (dates alone too)
 *   timestamptz ISO 8601 date and time, some with an offset (Z, +02, +05:30)
 *   uuid        8-4-4-4-12 hex digits
 *   text        anything else
 *
 * CSV reads the sample with the same options as the load (delimiter, quote, escape, null
 * string, header): names from the header (empty ones become columnN, repeated ones get _2, _3…)
 * or column1..N. NDJSON: keys in order of first appearance; JSON numbers take the numeric
 * rows of the list (int4, int8, numeric, float8), booleans bool, objects and arrays jsonb, and
 * strings the non-numeric ones (bool, date, timestamp, timestamptz, uuid: a JSON string of
 * digits stays text, as zip codes should); a key whose values are of several JSON kinds is text
 * (jsonb when one of them is an object or array). Parquet and Arrow: from the file's schema
 * (see arrowToPgType).
 *
 * The sample is read from the input given, which is then spent: a file is read again for the
 * load (ingestFiles opens it by name), and for standard input the sampled bytes are given back
 * (input.ts unreadStdin) so that the next Input of '-' yields every byte; `replay` is that
 * Input, for callers that read it themselves.
 */
import { type ColumnSpec, PaxdError, SQLSTATE, unreachable, parseText, type PgType, typeName } from '../types/index.js';
import { type CsvOptions, resolveCsvOptions } from './csv/options.js';
import { CsvTokenizer, FIELD_NULL, FIELD_QUOTED, RecordError } from './csv/tokenizer.js';
import { MAX_COLUMNS } from './csv/errors.js';
import type { Format } from './formats.js';
import { type Input, openInput, unreadStdin } from './input.js';
import { jsonLineEntries } from './ndjson.js';

export interface InferOptions {
  /** CSV options, as the load will use them. */
  csv?: Omit<CsvOptions, 'onError' | 'onReject' | 'table'>;
  /** Rows sampled (CSV, NDJSON); default 10,000. */
  sampleRows?: number;
  /** Bytes sampled (CSV, NDJSON; more when one row is longer); default 1 MiB. */
  sampleBytes?: number;
}

export interface InferredSchema {
  readonly columns: ColumnSpec[];
  /** Standard input again from its first byte (the sample, then the rest); null for a file. */
  readonly replay: Input | null;
}

export const DEFAULT_SAMPLE_ROWS = 10000;
export const DEFAULT_SAMPLE_BYTES = 1 << 20;

export async function inferSchema(format: Format, input: Input, opts: InferOptions = {}): Promise<InferredSchema> {
  const isStdin = input.name === 'stdin';
  const sampleRows = opts.sampleRows ?? DEFAULT_SAMPLE_ROWS;
  const sampleBytes = opts.sampleBytes ?? DEFAULT_SAMPLE_BYTES;
  let columns: ColumnSpec[];
  switch (format) {
    case 'csv':
    case 'text': {
      const s = await readSample(input, sampleBytes, isStdin);
      columns = inferCsv(s.bytes, s.eof, { ...opts.csv, format }, sampleRows, input.name);
      break;
    }
    case 'ndjson': {
      const s = await readSample(input, sampleBytes, isStdin);
      columns = inferNdjson(s.bytes, s.eof, sampleRows, input.name);
      break;
    }
    case 'parquet':
    case 'arrow':
      // apache-arrow (and parquet-wasm) load only for these formats: a CSV ingest never pays for them.
      columns = await (await import('./infer-arrow.js')).inferArrowSchema(format, input, isStdin);
      break;
    default:
      return unreachable(format);
  }
  return { columns, replay: isStdin ? await openInput('-') : null };
}

/** `id int4, name text`: columns as `paxd create --columns` takes them. */
export function formatColumns(columns: readonly ColumnSpec[]): string {
  return columns.map((c) => `${quoteName(c.name)} ${typeof c.type === 'string' ? c.type : typeName(c.type)}`).join(', ');
}

function quoteName(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

// ---- sampling ----

interface Sample {
  /** The sampled bytes, with one spare byte at the end (the CSV tokenizer's sentinel). */
  bytes: Buffer;
  /** true when the sample is the whole input. */
  eof: boolean;
}

/** At least `maxBytes` from the start of the input (all of it if shorter); stdin gets them back. */
async function readSample(input: Input, maxBytes: number, isStdin: boolean): Promise<Sample> {
  const it = input.stream[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let eof = false;
  try {
    while (total < maxBytes) {
      const r = await it.next();
      if (r.done === true) {
        eof = true;
        break;
      }
      chunks.push(r.value);
      total += r.value.byteLength;
    }
  } finally {
    if (!eof) await it.return?.();
    await input.close();
    if (isStdin) unreadStdin(chunks);
  }
  const bytes = Buffer.allocUnsafe(total + 1);
  let o = 0;
  for (const c of chunks) {
    bytes.set(c, o);
    o += c.byteLength;
  }
  return { bytes: bytes.subarray(0, total + 1), eof };
}

// ---- the type lattice for values as text ----

const BOOL = 1 << 0;
const INT4 = 1 << 1;
const INT8 = 1 << 2;
const NUMERIC = 1 << 3;
const FLOAT8 = 1 << 4;
const DATE = 1 << 5;
const TIMESTAMP = 1 << 6;
const TIMESTAMPTZ = 1 << 7;
const UUID = 1 << 8;
const NUMBERS = INT4 | INT8 | NUMERIC | FLOAT8;
const ALL = BOOL | NUMBERS | DATE | TIMESTAMP | TIMESTAMPTZ | UUID;

/** In order of preference: the first candidate left wins. */
const ORDER: readonly [number, PgType][] = [
  [BOOL, { id: 'bool' }],
  [INT4, { id: 'int4' }],
  [INT8, { id: 'int8' }],
  [NUMERIC, { id: 'numeric' }],
  [FLOAT8, { id: 'float8' }],
  [DATE, { id: 'date' }],
  [TIMESTAMP, { id: 'timestamp' }],
  [TIMESTAMPTZ, { id: 'timestamptz' }],
  [UUID, { id: 'uuid' }],
];

const RE_BOOL = /^(true|false|t|f)$/i;
const RE_INT = /^[+-]?\d+$/;
const RE_DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const RE_FLOAT = /^[+-]?((\d+\.?\d*|\.\d+)[eE][+-]?\d+|inf|infinity|nan)$/i;
const RE_DATE = /^\d{4}-\d{2}-\d{2}$/;
const RE_TS = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/;
const RE_TSTZ = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s?(Z|[+-]\d{2}(:?\d{2})?)$/i;
const RE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether PostgreSQL's input function of `t` reads `v` (so the load cannot fail on it). */
function reads(t: PgType, v: string): boolean {
  try {
    parseText(t, v);
    return true;
  } catch {
    return false;
  }
}

/**
 * The candidates of `mask` that still hold after the value `v`. Implications spare most parses:
 * an int4 is an int8; a plain decimal of under 300 characters is a float8 (too few digits to
 * overflow or underflow one); a valid yyyy-mm-dd date is a timestamp and a timestamptz.
 */
function narrow(mask: number, v: string): number {
  let m = mask;
  if (m & BOOL && !RE_BOOL.test(v)) m &= ~BOOL;
  if (m & (INT4 | INT8)) {
    if (!RE_INT.test(v)) m &= ~(INT4 | INT8);
    else if (!(m & INT4 && reads({ id: 'int4' }, v))) {
      m &= ~INT4;
      if (m & INT8 && !reads({ id: 'int8' }, v)) m &= ~INT8;
    }
  }
  const decimal = (m & (NUMERIC | FLOAT8)) !== 0 && RE_DECIMAL.test(v);
  if (m & NUMERIC && !decimal) m &= ~NUMERIC;
  if (m & FLOAT8 && !(decimal && v.length < 300) && !((decimal || RE_FLOAT.test(v)) && reads({ id: 'float8' }, v))) m &= ~FLOAT8;
  let date = false;
  if (m & DATE) {
    date = RE_DATE.test(v) && reads({ id: 'date' }, v);
    if (!date) m &= ~DATE;
  }
  if (m & TIMESTAMP && !date && !(RE_TS.test(v) && reads({ id: 'timestamp' }, v))) m &= ~TIMESTAMP;
  if (m & TIMESTAMPTZ && !date && !((RE_TS.test(v) || RE_TSTZ.test(v)) && reads({ id: 'timestamptz' }, v))) m &= ~TIMESTAMPTZ;
  if (m & UUID && !RE_UUID.test(v)) m &= ~UUID;
  return m;
}

function choose(mask: number, seen: boolean): PgType {
  if (!seen) return { id: 'text' };
  for (const [bit, t] of ORDER) if (mask & bit) return t;
  return { id: 'text' };
}

/** Names made unique and non-empty, as createTable needs them. */
function uniqueNames(names: readonly (string | null)[]): string[] {
  const used = new Set<string>();
  return names.map((raw, i) => {
    let name = raw === null || raw === '' ? `column${i + 1}` : raw;
    if (used.has(name)) {
      let k = 2;
      while (used.has(`${name}_${k}`)) k++;
      name = `${name}_${k}`;
    }
    used.add(name);
    return name;
  });
}

// ---- CSV ----

function inferCsv(bytes: Buffer, eof: boolean, csv: Omit<CsvOptions, 'onError' | 'onReject' | 'table'>, maxRows: number, file: string): ColumnSpec[] {
  const opts = resolveCsvOptions({ ...csv });
  const end = bytes.length - 1;
  let pos = 0;
  if (end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) pos = 3;
  // The first record fixes the number of columns (and names them, with a header).
  const first = new CsvTokenizer(opts, MAX_COLUMNS + 1, 1);
  const afterFirst = first.tokenize(bytes, pos, end, eof, 1);
  if (first.n === 0) throw new PaxdError('invalid_input', SQLSTATE.bad_copy_file_format, `${file}: no complete CSV record in the first ${end} bytes to infer a schema from`, { file });
  const nf = Math.min(first.nFields[0]!, MAX_COLUMNS);
  const fieldText = (tok: CsvTokenizer, p: number, r: number): string | null => {
    const k = p * tok.cap + r;
    const fl = tok.fFlags[k]!;
    if (fl === FIELD_NULL) return null;
    return (fl === FIELD_QUOTED ? tok.qbuf : bytes).toString('utf8', tok.fStart[k], tok.fEnd[k]);
  };
  let names: string[];
  if (opts.header !== 'none') {
    names = uniqueNames(Array.from({ length: nf }, (_, p) => fieldText(first, p, 0)));
    pos = afterFirst;
  } else names = Array.from({ length: nf }, (_, p) => `column${p + 1}`);
  const masks = new Array<number>(nf).fill(ALL);
  const seen = new Array<boolean>(nf).fill(false);
  const tok = new CsvTokenizer(opts, nf, 4096);
  let rows = 0;
  while (rows < maxRows && pos < end) {
    const next = tok.tokenize(bytes, pos, end, eof, Math.min(4096, maxRows - rows));
    if (tok.n === 0) break; // the cut record at the end of the sample
    for (let r = 0; r < tok.n; r++) {
      // A record that would fail the load anyway (extra fields, bad quoting) says nothing of types.
      if (tok.recErr[r] !== RecordError.None) continue;
      const n = Math.min(tok.nFields[r]!, nf);
      for (let p = 0; p < n; p++) {
        const v = fieldText(tok, p, r);
        if (v === null) continue;
        seen[p] = true;
        if (masks[p] !== 0) masks[p] = narrow(masks[p]!, v);
      }
    }
    rows += tok.n;
    pos = next;
    if (tok.ended) break;
  }
  return names.map((name, p) => ({ name, type: choose(masks[p]!, seen[p]!) }));
}

// ---- NDJSON ----

interface KeyStats {
  name: string;
  kinds: number;
  mask: number;
  seen: boolean;
}

const K_STRING = 1;
const K_NUMBER = 2;
const K_BOOL = 4;
const K_NESTED = 8;

function inferNdjson(bytes: Buffer, eof: boolean, maxRows: number, file: string): ColumnSpec[] {
  let end = bytes.length - 1;
  if (!eof) end = bytes.lastIndexOf(10, end - 1) + 1; // complete lines only
  let text = bytes.toString('utf8', 0, end);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const keys = new Map<string, KeyStats>();
  let rows = 0;
  let lineNo = 0;
  for (let ls = 0; ls < text.length && rows < maxRows; ) {
    let le = text.indexOf('\n', ls);
    if (le < 0) le = text.length;
    lineNo++;
    const line = text.slice(ls, le);
    ls = le + 1;
    if (line.trim() === '') continue;
    const entries = jsonLineEntries(line);
    if (entries === null) throw new PaxdError('invalid_input', SQLSTATE.invalid_text_representation, `${file}:${lineNo}: invalid input syntax for type json`, { file, line: lineNo });
    rows++;
    for (const e of entries) {
      let k = keys.get(e.key);
      if (k === undefined) keys.set(e.key, (k = { name: e.key, kinds: 0, mask: ALL, seen: false }));
      switch (e.kind) {
        case 'null':
          break;
        case 'string':
          k.kinds |= K_STRING;
          k.mask = narrow(k.mask & ~NUMBERS, e.text);
          break;
        case 'number':
          k.kinds |= K_NUMBER;
          k.mask = narrow(k.mask & NUMBERS, e.text);
          break;
        case 'bool':
          k.kinds |= K_BOOL;
          k.mask &= BOOL;
          break;
        case 'nested':
          k.kinds |= K_NESTED;
          break;
      }
    }
  }
  return [...keys.values()].map((k) => {
    let type: PgType;
    if (k.kinds & K_NESTED) type = { id: 'jsonb' };
    else if (k.kinds === 0) type = { id: 'text' };
    else if (k.kinds !== K_STRING && k.kinds !== K_NUMBER && k.kinds !== K_BOOL) type = { id: 'text' };
    else type = choose(k.mask, true);
    return { name: k.name, type };
  });
}
