/**
 * Where a set-returning function may be called (PostgreSQL 15 parse_func.c
 * check_srf_call_placement): at the top of a FROM item, and in the select list, which
 * ./select-srf.ts rewrites into a LATERAL ROWS FROM before binding. Anywhere else the call is
 * 0A000, as PostgreSQL's `set-returning functions are not allowed in WHERE`.
 */
import { type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { isSetReturning } from '../functions/registry.js';
import { SQLSTATE } from '../../types/index.js';
import { SqlError, positionOf } from '../errors.js';

/** The alias of the ROWS FROM that ./select-srf.ts makes of a select list's set-returning calls (level 2 and up: nested calls). */
export const SELECT_SRF_ALIAS = '?srf?';

export const selectSrfAlias = (level: number): string => (level === 1 ? SELECT_SRF_ALIAS : `?srf${level}?`);

/** Whether a FROM item's alias is one ./select-srf.ts made (hidden from `*`). */
export const isSelectSrfAlias = (name: unknown): boolean => typeof name === 'string' && /^\?srf\d*\?$/.test(name);

/** Set by ./function-from.ts right before it binds a FROM item's call: that one call may return a set. */
export const srfScope = { next: false };

/** The function name of a FuncCall (its last name part). */
export function funcNameOf(node: AstNode): string {
  const names = fieldsOf(node).funcname as AstNode[];
  return str(names[names.length - 1]!);
}

/** Called by the Binder for every FuncCall: 0A000 for a set-returning one outside a FROM item's top. */
export function checkSrfPlacement(node: AstNode, clause: string): void {
  if (kindOf(node) !== 'FuncCall') return;
  const allowed = srfScope.next;
  srfScope.next = false;
  if (allowed || !isSetReturning(funcNameOf(node)) || fieldsOf(node).over !== undefined) return;
  const where = clause === 'FROM' ? 'set-returning functions must appear at top level of FROM' : `set-returning functions are not allowed in ${clause}`;
  throw new SqlError('unsupported', SQLSTATE.feature_not_supported, where, positionOf(fieldsOf(node).location as number));
}
