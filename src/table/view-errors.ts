/**
 * The errors of writes aimed at a view (CREATE VIEW, ./views.ts). paxd's views are read-only:
 * PostgreSQL's automatically updatable views (docs 15, CREATE VIEW "Updatable Views") are not
 * built, so INSERT, UPDATE, DELETE, COPY FROM and loads into a view fail with 0A000 naming it.
 */
import { PaxdError, SQLSTATE } from '../types/index.js';

/** `cannot change view "v"`: a write into a view (0A000). */
export function viewNotWritable(view: string): PaxdError {
  return new PaxdError('unsupported', SQLSTATE.feature_not_supported, `cannot change view "${view}": writes into views (PostgreSQL's automatically updatable views) are not supported`, {
    hint: 'Write into the tables the view reads.',
  });
}

/**
 * `t` for a command that reads a table's stored data (`paxd export`, `paxd stats`, `paxd check`):
 * of a view, which stores none, 42809 naming the command instead of an empty answer.
 */
export function storedTable<T extends { readonly name: string; readonly snapshot: { readonly view?: unknown } }>(t: T, command: string): T {
  if (t.snapshot.view === undefined) return t;
  throw new PaxdError('invalid_input', SQLSTATE.wrong_object_type, `"${t.name}" is a view: ${command} reads a table's stored data`, {
    hint: `Read the view with SQL instead, e.g. COPY (SELECT * FROM ${t.name}) TO STDOUT.`,
  });
}
