/**
 * Datetime functions of the library (PostgreSQL 15 docs 9.9): make_date, isfinite, justify_* …
 */
import type { Family } from './signature.js';

export const DATETIME_FUNCTIONS: Family = Object.freeze({});
