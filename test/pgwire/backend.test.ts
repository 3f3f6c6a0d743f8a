/** The backend writers, byte for byte, and PostgreSQL's type OIDs and typmods. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as be from '../../src/pgwire/codec/backend.js';
import { TX_STATUS } from '../../src/pgwire/codec/constants.js';
import { typeOid, typmodOf } from '../../src/pgwire/codec/oids.js';
import { TYPE_IDS, type PgType } from '../../src/types/index.js';
import { dataRowOf, errorFieldsOf, splitReplies } from './client.js';

const hex = (b: Buffer) => b.toString('hex');

test('fixed messages, byte for byte', () => {
  assert.is(hex(be.readyForQuery(TX_STATUS.idle)), '5a0000000549');
  assert.is(hex(be.readyForQuery(TX_STATUS.failed)), '5a0000000545');
  assert.is(hex(be.authenticationOk()), '520000000800000000');
  assert.is(hex(be.backendKeyData(7, -1)), '4b0000000c00000007ffffffff');
  assert.is(hex(be.emptyQueryResponse()), '4900000004');
  assert.is(hex(be.refuseEncryption()), '4e');
  assert.is(hex(be.parameterStatus('a', 'b')), '5300000008610062' + '00');
  assert.is(hex(be.commandComplete('SELECT 1')), '430000000d' + Buffer.from('SELECT 1\0').toString('hex'));
  assert.is(hex(be.negotiateProtocolVersion(0, ['_pq_.x'])), '7600000013' + '00000000' + '00000001' + Buffer.from('_pq_.x\0').toString('hex'));
});

test('type OIDs and typmods are PostgreSQL\'s', () => {
  const cases: [PgType, number, number][] = [
    [{ id: 'int2' }, 21, -1],
    [{ id: 'int4' }, 23, -1],
    [{ id: 'int8' }, 20, -1],
    [{ id: 'float4' }, 700, -1],
    [{ id: 'float8' }, 701, -1],
    [{ id: 'bool' }, 16, -1],
    [{ id: 'text' }, 25, -1],
    [{ id: 'varchar', length: 10 }, 1043, 14],
    [{ id: 'varchar' }, 1043, -1],
    [{ id: 'bpchar', length: 3 }, 1042, 7],
    [{ id: 'bytea' }, 17, -1],
    [{ id: 'date' }, 1082, -1],
    [{ id: 'timestamp' }, 1114, -1],
    [{ id: 'timestamptz' }, 1184, -1],
    [{ id: 'numeric', precision: 12, scale: 2 }, 1700, ((12 << 16) | 2) + 4],
    [{ id: 'numeric' }, 1700, -1],
    [{ id: 'uuid' }, 2950, -1],
    [{ id: 'jsonb' }, 3802, -1],
    [{ id: 'json' }, 114, -1],
  ];
  for (const [t, oid, typmod] of cases) {
    assert.is(typeOid(t), oid, t.id);
    assert.is(typmodOf(t), typmod, t.id);
  }
  assert.equal(new Set(cases.map(([t]) => t.id)), new Set(TYPE_IDS), 'every type is covered');
});

test('RowDescription carries name, OID, size, typmod and text format', () => {
  const [r] = splitReplies(be.rowDescription([{ name: 'n', type: { id: 'numeric', precision: 5, scale: 1 } }, { name: 'é', type: { id: 'int8' } }]));
  const b = r!.body;
  assert.is(r!.code, 'T');
  assert.is(b.readInt16BE(0), 2);
  let off = b.indexOf(0, 2) + 1;
  assert.equal([b.readInt32BE(off), b.readInt16BE(off + 4), b.readInt32BE(off + 6), b.readInt16BE(off + 10), b.readInt32BE(off + 12), b.readInt16BE(off + 16)], [0, 0, 1700, -1, ((5 << 16) | 1) + 4, 0]);
  off = off + 18;
  assert.is(b.toString('utf8', off, b.indexOf(0, off)), 'é');
  off = b.indexOf(0, off) + 1;
  assert.equal([b.readInt32BE(off + 6), b.readInt16BE(off + 10)], [20, 8]);
});

test('DataRow: NULL, empty and multi-byte values', () => {
  const [r] = splitReplies(be.dataRow([null, '', 'héllo']));
  assert.is(r!.code, 'D');
  assert.equal(dataRowOf(r!.body), [null, '', 'héllo']);
});

test('ErrorResponse and NoticeResponse fields', () => {
  const [e] = splitReplies(be.errorResponse({ severity: 'ERROR', code: '22012', message: 'division by zero', detail: 'd', position: 8 }));
  assert.is(e!.code, 'E');
  assert.equal(errorFieldsOf(e!.body), { S: 'ERROR', V: 'ERROR', C: '22012', M: 'division by zero', D: 'd', P: '8' });
  assert.is(e!.body[e!.body.byteLength - 1], 0);
  const [n] = splitReplies(be.noticeResponse({ severity: 'WARNING', code: '25P01', message: 'there is no transaction in progress' }));
  assert.is(n!.code, 'N');
  assert.is(errorFieldsOf(n!.body).C, '25P01');
});

test('ParameterDescription', () => {
  assert.is(hex(be.parameterDescription([23, 25])), '740000000e' + '0002' + '00000017' + '00000019');
});

test.run();
