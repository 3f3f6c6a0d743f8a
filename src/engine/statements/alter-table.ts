/**
 * ALTER TABLE name ADD [COLUMN] [IF NOT EXISTS] column type [NOT NULL] [DEFAULT constant]:
 * metadata only (Table.addColumn), one snapshot. Other ALTER TABLE commands, and several
 * commands in one statement, fail with 0A000.
 */
import type { Database } from '../../table/index.js';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf } from '../parse.js';
import { openTable } from '../bind.js';
import { notSupported } from '../errors.js';
import type { QueryResult } from '../result.js';
import { columnSpec } from './create-table.js';

export async function alterTable(db: Database, s: AstFields): Promise<QueryResult> {
  const cmds = (s.cmds ?? []) as AstNode[];
  if (s.objtype !== 'OBJECT_TABLE') throw notSupported(`ALTER ${String(s.objtype).replace(/^OBJECT_/, '')}`);
  if (cmds.length !== 1) throw notSupported('several ALTER TABLE commands in one statement');
  const cmd = fieldsOf(cmds[0]!);
  if (cmd.subtype !== 'AT_AddColumn') throw notSupported(`ALTER TABLE ${String(cmd.subtype).replace(/^AT_/, '')}`);
  const rel = s.relation as AstFields;
  let table;
  try {
    table = await openTable(db, rel.relname as string, rel.location as number);
  } catch (e) {
    if (s.missing_ok === true && e instanceof PaxdError && e.code === SQLSTATE.undefined_table) return { command: 'ALTER TABLE', tag: 'ALTER TABLE', fields: [], rows: [] };
    throw e;
  }
  const spec = columnSpec(cmd.def);
  if (cmd.missing_ok === true && table.fields.some((f) => f.name === spec.name)) return { command: 'ALTER TABLE', tag: 'ALTER TABLE', fields: [], rows: [] };
  await table.addColumn(spec);
  return { command: 'ALTER TABLE', tag: 'ALTER TABLE', fields: [], rows: [] };
}
