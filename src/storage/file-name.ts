/**
 * Names of data files (PAX files, ao_column segment sets, delete vectors): never reused, so a
 * name in a snapshot always means the same bytes (DESIGN.md "Table format invariants").
 */
import { randomBytes } from 'node:crypto';

/** Data file names are never reused: time-ordered prefix plus 64 random bits. */
export function newFileName(): string {
  return `${Date.now().toString(16).padStart(12, '0')}-${randomBytes(8).toString('hex')}`;
}
