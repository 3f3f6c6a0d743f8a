/**
 * pg_settings (PostgreSQL 15 docs 54.24): the session's run-time parameters that SHOW knows, read
 * through the engine's SessionAccess (../context.ts); embedded, without a session, it is empty.
 */
import { currentContext } from '../context.js';
import type { SystemRow } from './relation.js';

/** The parameters a wire session has (src/pgwire/session/params.ts), those clients read from pg_settings. */
const NAMES = [
  'application_name', 'bytea_output', 'client_encoding', 'client_min_messages', 'DateStyle', 'default_transaction_isolation', 'default_transaction_read_only',
  'extra_float_digits', 'idle_in_transaction_session_timeout', 'integer_datetimes', 'IntervalStyle', 'lock_timeout', 'max_connections', 'max_identifier_length',
  'search_path', 'server_encoding', 'server_version', 'server_version_num', 'standard_conforming_strings', 'statement_timeout', 'TimeZone', 'transaction_isolation',
  'transaction_read_only', 'work_mem',
];

export function settingRows(): SystemRow[] {
  const s = currentContext()?.session;
  if (s === undefined) return [];
  const rows: SystemRow[] = [];
  for (const name of NAMES) {
    let setting: string;
    try {
      setting = s.setting(name);
    } catch {
      continue; // a parameter this session does not have
    }
    rows.push({ name, setting, unit: null, category: null, short_desc: null, extra_desc: null, context: 'user', vartype: 'string', source: 'session', boot_val: null, reset_val: null, pending_restart: false });
  }
  return rows;
}
