/**
 * What a server answers to one query, as comparable text, for the differential wire tests
 * (array-wire, binary-typmod): the simple protocol, then the extended protocol with text and
 * with binary results. RowDescription is "name oid typlen typmod" per column (the table OID
 * and attnum are not compared), DataRows are hex, errors their SQLSTATE.
 *
 *   await wireAnswers(port, 'postgres', 'SELECT 1.5::numeric(5,1) AS n')
 *   // ['simple: T n 1700 -1 327685\nD 0001000000...', 'extended text: …', 'extended binary: …']
 */
import { fe, RawClient, type Reply } from './client.js';

export function rowDescription(body: Buffer): string[] {
  const out: string[] = [];
  let off = 2;
  for (let i = 0; i < body.readInt16BE(0); i++) {
    const end = body.indexOf(0, off);
    const name = body.toString('utf8', off, end);
    off = end + 1 + 6;
    out.push(`${name} ${body.readInt32BE(off)} ${body.readInt16BE(off + 4)} ${body.readInt32BE(off + 6)}`);
    off += 12;
  }
  return out;
}

export function answer(rs: Reply[]): string[] {
  return rs.flatMap((r) => {
    if (r.code === 'T') return [`T ${rowDescription(r.body).join(' | ')}`];
    if (r.code === 'D') return [`D ${r.body.toString('hex')}`];
    if (r.code === 'E') return [`E ${/C([0-9A-Z]{5})\0/.exec(r.body.toString('latin1'))?.[1] ?? '?'}`];
    return [];
  });
}

export async function wireAnswers(port: number, user: string, sql: string): Promise<string[]> {
  const c = await RawClient.session(port, { user, database: user });
  try {
    const out = [`simple: ${answer(await c.query(sql)).join('\n')}`];
    for (const format of [0, 1]) {
      c.send(fe.parse('', sql), fe.bind('', '', [], [format]), fe.describe('P', ''), fe.execute(''), fe.sync());
      out.push(`extended ${format === 0 ? 'text' : 'binary'}: ${answer(await c.untilReady()).join('\n')}`);
    }
    return out;
  } finally {
    c.end();
  }
}
