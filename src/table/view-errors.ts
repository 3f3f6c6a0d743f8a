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
