/**
 * SET, RESET and SHOW as statements (https://www.postgresql.org/docs/15/sql-set.html): the
 * session's run-time parameters (./params.ts) changed or shown, with the ParameterStatus
 * changes the session reports before its next ReadyForQuery.
 */
import { featureNotSupported, unreachable } from '../../types/index.js';
import type { ParamChange, SessionParams } from './params.js';
import type { Statement } from './statements.js';
import { NO_ROWS, type Outcome } from './outcome.js';

export type SettingStatement = Statement & { kind: 'set' | 'reset' | 'reset-all' | 'show' };

/** Runs a SET/RESET/SHOW; `report` gets the changes of reported parameters. */
export function runSetting(stmt: SettingStatement, params: SessionParams, report: (changes: readonly ParamChange[]) => void): Outcome {
  switch (stmt.kind) {
    case 'set':
      report([params.set(stmt.name, stmt.value)]);
      return { ...NO_ROWS, tag: 'SET' };
    case 'reset':
      report([params.reset(stmt.name)]);
      return { ...NO_ROWS, tag: stmt.tag };
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
