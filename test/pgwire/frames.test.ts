/**
 * The frame reader and the frontend parsers: frames split at every byte position, several per
 * chunk, hostile lengths refused before any body is buffered, views at a byteOffset, and
 * malformed bodies answered with 08P01.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FrameReader, type Frame } from '../../src/pgwire/codec/frames.js';
import { parseBind, parseExecute, parseParse, parseQuery, parseStartup, parseTarget } from '../../src/pgwire/codec/frontend.js';
import { fe, msg, startupPacket } from './client.js';

const SESSION = Buffer.concat([
  fe.ssl(),
  fe.startup({ user: 'paxd', database: 'db', application_name: 'psql' }),
  fe.query("select 1; select 'é'"),
  fe.parse('', 'select $1', [23]),
  fe.bind('', '', ['42', null]),
  fe.describe('P', ''),
  fe.execute('', 10),
  fe.sync(),
  fe.terminate(),
]);

function describe(frames: Frame[]): string[] {
  return frames.map((f) => `${f.kind}:${f.code}:${Buffer.from(f.body).toString('hex')}`);
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

const whole = describe(new FrameReader().push(SESSION));

test('a whole session in one chunk gives every frame', () => {
  assert.is(whole.length, 9);
  assert.ok(whole[0]!.startsWith('startup:80877103:'));
  assert.ok(whole[1]!.startsWith('startup:196608:'));
  assert.ok(whole[2]!.startsWith(`message:${'Q'.charCodeAt(0)}:`));
  assert.ok(whole[8]!.startsWith(`message:${'X'.charCodeAt(0)}:`));
});

test('split at every byte position gives the same frames', () => {
  for (let i = 0; i <= SESSION.byteLength; i++) {
    const r = new FrameReader();
    const frames = [...r.push(SESSION.subarray(0, i)), ...r.push(SESSION.subarray(i))];
    assert.equal(describe(frames), whole, `split at ${i}`);
    assert.is(r.buffered, 0);
  }
});

test('split at every pair of positions gives the same frames', () => {
  for (let i = 0; i <= SESSION.byteLength; i += 3) {
    for (let j = i; j <= SESSION.byteLength; j += 5) {
      const r = new FrameReader();
      const frames = [...r.push(SESSION.subarray(0, i)), ...r.push(SESSION.subarray(i, j)), ...r.push(SESSION.subarray(j))];
      assert.equal(describe(frames), whole, `split at ${i}, ${j}`);
    }
  }
});

test('one byte at a time gives the same frames', () => {
  const r = new FrameReader();
  const frames: Frame[] = [];
  for (let i = 0; i < SESSION.byteLength; i++) frames.push(...r.push(SESSION.subarray(i, i + 1)));
  assert.equal(describe(frames), whole);
});

test('frames are read through a view at a byteOffset into a larger pool', () => {
  const pool = Buffer.alloc(SESSION.byteLength + 100, 0xee);
  SESSION.copy(pool, 37);
  const view = Buffer.from(pool.buffer, pool.byteOffset + 37, SESSION.byteLength);
  assert.equal(describe(new FrameReader().push(view)), whole);
});

test('frame bodies stay valid after later pushes', () => {
  const r = new FrameReader();
  const cut = SESSION.byteLength - 7;
  const first = r.push(SESSION.subarray(0, cut));
  const before = describe(first);
  r.push(SESSION.subarray(cut));
  assert.equal(describe(first), before);
});

test('a COPY stream in odd-sized reads: every CopyData body as sent and unchanged after later reads, across slabs', () => {
  // 64 KiB + 5-byte messages in 65,536-byte reads (as a socket delivers them) and in reads of
  // 1,000,003 bytes, so that held frames cross the reader's 1 MiB slabs; bodies of every size
  // up to 2.5 MiB (larger than a slab).
  const bodies: Buffer[] = [];
  for (let i = 0; i < 60; i++) {
    const n = i === 7 ? 2_500_000 : i % 5 === 0 ? 3 : 65_536;
    const b = Buffer.allocUnsafe(n);
    for (let k = 0; k < n; k++) b[k] = (i * 31 + k) & 0xff;
    bodies.push(b);
  }
  const stream = Buffer.concat([fe.startup({ user: 'u' }), ...bodies.map((b) => fe.copyData(b))]);
  for (const read of [65_536, 1_000_003, 4_093]) {
    const r = new FrameReader();
    const got: Frame[] = [];
    for (let off = 0; off < stream.byteLength; off += read) got.push(...r.push(stream.subarray(off, off + read)));
    assert.is(r.buffered, 0);
    assert.is(got.length, bodies.length + 1, `reads of ${read}`);
    got.slice(1).forEach((f, i) => assert.ok(f.code === 0x64 && f.body.equals(bodies[i]!), `reads of ${read}: CopyData ${i}`));
  }
});

test('a truncated frame is held, not returned', () => {
  const r = new FrameReader();
  const q = fe.query('select 1');
  r.push(fe.startup({ user: 'u' }));
  assert.equal(r.push(q.subarray(0, q.byteLength - 1)), []);
  assert.is(r.buffered, q.byteLength - 1);
  assert.is(r.push(q.subarray(q.byteLength - 1)).length, 1);
});

test('a startup packet longer than 10,000 bytes is refused after its length', () => {
  const r = new FrameReader();
  const b = Buffer.alloc(4);
  b.writeInt32BE(10_001);
  assert.is(codeOf(() => r.push(b)), '08P01');
  const ok = new FrameReader();
  assert.equal(ok.push(startupPacket(0x30000, Buffer.alloc(10_000 - 8))).length, 1);
});

test('a startup packet shorter than 8 bytes is refused', () => {
  assert.is(codeOf(() => new FrameReader().push(Buffer.from([0, 0, 0, 4]))), '08P01');
  assert.is(codeOf(() => new FrameReader().push(Buffer.from([0xff, 0xff, 0xff, 0xff]))), '08P01');
});

test('a 2 GB declared message length is refused from its 5 header bytes, nothing buffered', () => {
  const r = new FrameReader({ maxMessageSize: 1024 });
  r.push(fe.startup({ user: 'u' }));
  const header = Buffer.from([0x51, 0x7f, 0xff, 0xff, 0xff]);
  assert.is(codeOf(() => r.push(header)), '08P01');
  assert.is(r.buffered, 0);
});

test('the configured maximum message size is enforced, inclusive', () => {
  const r = new FrameReader({ maxMessageSize: 100 });
  r.push(fe.startup({ user: 'u' }));
  assert.is(r.push(msg('Q', Buffer.alloc(96))).length, 1); // length 100
  assert.is(codeOf(() => r.push(msg('Q', Buffer.alloc(97)))), '08P01');
});

test('small messages are capped at 10,000 bytes whatever the maximum', () => {
  const r = new FrameReader({ maxMessageSize: 1 << 30 });
  r.push(fe.startup({ user: 'u' }));
  const header = Buffer.from([0x53, 0, 0, 0x27, 0x11]); // Sync, length 10001
  assert.is(codeOf(() => r.push(header)), '08P01');
});

test('a message length below 4 is refused', () => {
  const r = new FrameReader();
  r.push(fe.startup({ user: 'u' }));
  assert.is(codeOf(() => r.push(Buffer.from([0x51, 0, 0, 0, 3]))), '08P01');
});

test('SSLRequest keeps the reader in startup mode; StartupMessage 3.0 leaves it', () => {
  const r = new FrameReader();
  r.push(fe.ssl());
  assert.ok(r.inStartup);
  r.push(fe.startup({ user: 'u' }));
  assert.not.ok(r.inStartup);
});

test('parseStartup: every request kind', () => {
  const frames = new FrameReader().push(Buffer.concat([fe.ssl(), fe.gssenc(), fe.cancel(7, -3), fe.startup({ user: 'u', database: 'd' })]));
  const parsed = frames.map((f) => parseStartup(f.code, f.body));
  assert.equal(parsed.slice(0, 3), [{ kind: 'ssl' }, { kind: 'gssenc' }, { kind: 'cancel', processId: 7, secretKey: -3 }]);
  const s = parsed[3]!;
  assert.ok(s.kind === 'startup' && s.major === 3 && s.minor === 0 && s.params.get('database') === 'd');
});

test('malformed bodies are 08P01: unterminated strings, missing fields, trailing bytes', () => {
  assert.is(codeOf(() => parseQuery(Buffer.from('select 1'))), '08P01');
  assert.is(codeOf(() => parseQuery(Buffer.from('select 1\0x'))), '08P01');
  assert.is(codeOf(() => parseStartup(0x30000, Buffer.from('user\0u\0'))), '08P01');
  assert.is(codeOf(() => parseStartup(80877102, Buffer.alloc(4))), '08P01');
  assert.is(codeOf(() => parseTarget('Describe', Buffer.from('X\0'))), '08P01');
  assert.is(codeOf(() => parseExecute(Buffer.from('\0\0\0'))), '08P01');
  assert.is(codeOf(() => parseParse(Buffer.from('\0select 1\0\0\x01'))), '08P01');
  const bind = fe.bind('', '', ['1']).subarray(5);
  assert.is(codeOf(() => parseBind(bind.subarray(0, bind.byteLength - 1))), '08P01');
});

test('parseBind reads NULL and text parameters', () => {
  const m = parseBind(fe.bind('p', 's', ['42', null, '']).subarray(5));
  assert.is(m.portal, 'p');
  assert.is(m.statement, 's');
  assert.equal(m.params.map((p) => (p === null ? null : p.toString())), ['42', null, '']);
});

test.run();
