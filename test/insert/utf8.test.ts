/**
 * Every text input validates UTF-8 the same way (src/types/utf8.ts, PostgreSQL's rules and
 * wording): the bytes `FF FE C3 28` in a text value fail CSV, NDJSON, Arrow (file and stream)
 * and Parquet loads (Parquet string columns are read as bytes, src/insert/parquet-footer.ts) with
 * 22021 and the message a real PostgreSQL 15 gives for them (`invalid
 * byte sequence for encoding "UTF8": 0xff`: 0xff announces a one-byte character), located at
 * the row, and nothing is committed; in skip mode the row is rejected and the rest load.
 * (Arrow used to store the bytes, read them back as U+FFFD and break `paxd export` with XX000.)
 * Also: a character split between two Arrow values, NUL, and a dictionary-encoded column.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compression, Table as WasmTable, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm';
import { Int32, RecordBatch, Schema, Field as ArrowField, Table as ArrowTable, Utf8, makeData, tableToIPC, Struct, Dictionary, type Data } from 'apache-arrow';
import { Database } from '../../src/table/database.js';
import { ingestFiles } from '../../src/table/ingest.js';
import { PaxdError } from '../../src/types/errors.js';
import { parseColumns } from '../../src/types/parse-type.js';
import { getValue } from '../../src/types/builder.js';
import { readAll } from '../support/columns.js';
import { tempDir } from '../support/tmp.js';
import { startPostgres } from '../support/pg.js';

/** What PostgreSQL says of the bytes, asked of a real server. */
async function postgresMessage(bytes: Buffer): Promise<{ code: string; message: string }> {
  const pg = await startPostgres();
  try {
    await pg.query(`SELECT convert_from('\\x${bytes.toString('hex')}'::bytea, 'UTF8')`);
    throw new Error('PostgreSQL accepted the bytes');
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  } finally {
    await pg.stop();
  }
}

const BAD = Buffer.from([0xff, 0xfe, 0xc3, 0x28]);
/** Rows `(1,'a') (2,BAD) (3,'c')`: the bad value in row 2. */
const VALUES: Buffer[] = [Buffer.from('a'), BAD, Buffer.from('c')];

function utf8Data(values: readonly Buffer[]): Data<Utf8> {
  const offsets = new Int32Array(values.length + 1);
  values.forEach((v, i) => (offsets[i + 1] = offsets[i]! + v.byteLength));
  return makeData({ type: new Utf8(), length: values.length, nullCount: 0, valueOffsets: offsets, data: Buffer.concat(values) });
}

function arrowTable(values: readonly Buffer[], dictionary = false): ArrowTable {
  const ids = makeData({ type: new Int32(), length: values.length, nullCount: 0, data: Int32Array.from(values, (_, i) => i + 1) });
  let name: Data = utf8Data(values);
  if (dictionary) {
    const dict = utf8Data(values);
    const type = new Dictionary(new Utf8(), new Int32());
    name = makeData({ type, length: values.length, nullCount: 0, data: Int32Array.from(values, (_, i) => i), dictionary: new ArrowTable({ d: dict }).getChild('d')! });
  }
  const schema = new Schema([new ArrowField('id', new Int32(), false), new ArrowField('name', name.type, true)]);
  const struct = makeData({ type: new Struct(schema.fields), length: values.length, nullCount: 0, children: [ids, name] });
  return new ArrowTable(schema, [new RecordBatch(schema, struct)]);
}

/**
 * A Parquet file with the bad bytes: written with a placeholder of the same length (parquet-wasm
 * validates UTF-8 on its Arrow side), uncompressed and without dictionaries, then patched in.
 */
function parquetBytes(): Uint8Array {
  const PLACEHOLDER = Buffer.from('QZQZ');
  const ipc = tableToIPC(arrowTable([Buffer.from('a'), PLACEHOLDER, Buffer.from('c')]), 'stream');
  const props = new WriterPropertiesBuilder().setCompression(Compression.UNCOMPRESSED).setDictionaryEnabled(false).setStatisticsEnabled(0 as never).build();
  const bytes = Buffer.from(writeParquet(WasmTable.fromIPCStream(ipc), props));
  let patched = 0;
  for (let at = bytes.indexOf(PLACEHOLDER); at >= 0; at = bytes.indexOf(PLACEHOLDER, at + 1)) {
    BAD.copy(bytes, at);
    patched++;
  }
  assert.ok(patched >= 1, 'placeholder not found in the Parquet file');
  return bytes;
}

interface Case {
  name: string;
  bytes: Uint8Array;
  /** Whether the format has a skip mode (Arrow loads record batches whole). */
  skip: boolean;
}

function cases(dir: string): Case[] {
  const csv = Buffer.concat([Buffer.from('1,a\n2,'), BAD, Buffer.from('\n3,c\n')]);
  const ndjson = Buffer.concat([Buffer.from('{"id":1,"name":"a"}\n{"id":2,"name":"'), BAD, Buffer.from('"}\n{"id":3,"name":"c"}\n')]);
  const out: Case[] = [
    { name: 'in.csv', bytes: csv, skip: true },
    { name: 'in.ndjson', bytes: ndjson, skip: true },
    { name: 'in.arrow', bytes: tableToIPC(arrowTable(VALUES), 'file'), skip: false },
    { name: 'in.arrows', bytes: tableToIPC(arrowTable(VALUES), 'stream'), skip: false },
    { name: 'dict.arrows', bytes: tableToIPC(arrowTable(VALUES, true), 'stream'), skip: false },
    { name: 'in.parquet', bytes: parquetBytes(), skip: true },
  ];
  for (const c of out) writeFileSync(join(dir, c.name), c.bytes);
  return out;
}

test('FF FE C3 28 in a text value: 22021 with PostgreSQL\'s message through every input format, nothing committed', async () => {
  const want = await postgresMessage(BAD);
  assert.is(want.message, 'invalid byte sequence for encoding "UTF8": 0xff');
  const dir = tempDir();
  const db = await Database.open(join(dir, 'data'));
  for (const c of cases(dir)) {
    const t = await db.createTable(`t_${c.name.replace('.', '_')}`, parseColumns('id int4 not null, name text'));
    const e = await ingestFiles(t, [join(dir, c.name)]).then(
      () => null,
      (x: unknown) => x,
    );
    if (!(e instanceof PaxdError)) throw new Error(`${c.name}: expected 22021, got ${e === null ? 'a load' : String(e)}`);
    assert.is(e.code, '22021', `${c.name}: ${e.message}`);
    assert.ok(e.message.endsWith(`: ${want.message}`), `${c.name}: ${e.message}`);
    assert.is(e.file, join(dir, c.name), c.name);
    assert.ok(e.line === 2 || e.row === 2, `${c.name}: located at row 2: ${e.message}`);
    await t.refresh();
    assert.is(t.rows, 0, `${c.name}: committed`);

    if (!c.skip) continue;
    const r = await ingestFiles(t, [join(dir, c.name)], { onError: 'skip', rejects: join(dir, `${c.name}.rejects`) });
    assert.equal([r.rowsRead, r.rowsLoaded, r.rowsRejected], [3, 2, 1], c.name);
    await t.refresh();
    const [ids, names] = await readAll(t.scan());
    assert.equal([getValue(ids!, 0), getValue(ids!, 1), getValue(names!, 0), getValue(names!, 1)], [1, 3, 'a', 'c'], c.name);
  }
  await db.close();
});

test('Arrow: a character split between two values and NUL are 22021 at their row; valid multi-byte and empty values load', async () => {
  const dir = tempDir();
  const db = await Database.open(join(dir, 'data'));
  const t = await db.createTable('t', parseColumns('id int4 not null, name text'));
  const load = async (name: string, table: ArrowTable) => {
    writeFileSync(join(dir, name), tableToIPC(table, 'stream'));
    return ingestFiles(t, [join(dir, name)]).then(
      () => null,
      (x: unknown) => x as PaxdError,
    );
  };
  // "é" is C3 A9: split, the whole buffer is valid UTF-8 and neither value is.
  const split = await load('split.arrows', arrowTable([Buffer.from('x\xc3', 'latin1'), Buffer.from('\xa9y', 'latin1')]));
  assert.is(split?.code, '22021');
  assert.ok(split!.message.endsWith('invalid byte sequence for encoding "UTF8": 0xc3'), split!.message);
  assert.is(split!.row, 1);
  const nul = await load('nul.arrows', arrowTable([Buffer.from('ok'), Buffer.from('a\0b')]));
  assert.is(nul?.code, '22021');
  assert.ok(nul!.message.endsWith('invalid byte sequence for encoding "UTF8": 0x00'), nul!.message);
  assert.is(nul!.row, 2);
  // Valid values that look alike to a byte-range check: several characters per value, and empty ones.
  assert.is(await load('good.arrows', arrowTable([Buffer.from('é'), Buffer.from(''), Buffer.from('日本'), Buffer.from('𝄞')])), null);
  await t.refresh();
  assert.is(t.rows, 4);
  await db.close();
});

test.run();
