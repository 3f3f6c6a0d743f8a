/**
 * SET, RESET and SHOW as statements (https://www.postgresql.org/docs/15/sql-set.html): the
 * session's run-time parameters (./params.ts) changed or shown, with the ParameterStatus
 * changes the session reports before its next ReadyForQuery.
 */
import { featureNotSupported, SQLSTATE, unreachable } from '../../types/index.js';
import * as be from '../codec/backend.js';
import type { ParamChange, SessionParams } from './params.js';
import type { Statement } from './statements.js';
import { NO_ROWS, type Outcome } from './outcome.js';

export type SettingStatement = Statement & { kind: 'set' | 'reset' | 'reset-all' | 'show' };

/**
 * Runs a SET/RESET/SHOW; `report` gets the changes of reported parameters. Inside a
 * transaction its ROLLBACK undoes them, and SET LOCAL lasts until its end (./setting-stack.ts);
 * outside one, SET LOCAL warns as PostgreSQL's WarnNoTransactionBlock does and changes nothing.
 */
export function runSetting(stmt: SettingStatement, params: SessionParams, report: (changes: readonly ParamChange[]) => void): Outcome {
  switch (stmt.kind) {
    case 'set':
      report([params.set(stmt.name, stmt.value, stmt.local)]);
      return { ...NO_ROWS, tag: 'SET', messages: localWarning(stmt.local, params) };
    case 'reset':
      report([params.reset(stmt.name, stmt.local)]);
      return { ...NO_ROWS, tag: stmt.tag, messages: localWarning(stmt.local, params) };
    case 'reset-all':
      report(params.resetAll());
      return { ...NO_ROWS, tag: 'RESET' };
    case 'show': {
      if (stmt.name.toLowerCase() === 'all') throw featureNotSupported('SHOW ALL');
      const s = params.show(stmt.name);
      return { fields: [{ name: s.name, type: { id: 'text' } }], rows: [[s.value]], tag: 'SHOW', messages: [] };
    }
    default:
      return unreachable(stmt);
  }
}

/** 25P01 WARNING for SET LOCAL outside a transaction (xact.c CheckTransactionBlock). */
function localWarning(local: boolean, params: SessionParams): Buffer[] {
  if (!local || params.inTransaction || !params.sendsNotice('WARNING')) return [];
  return [be.noticeResponse({ severity: 'WARNING', code: SQLSTATE.no_active_sql_transaction, message: 'SET LOCAL can only be used in transaction blocks' })];
}
