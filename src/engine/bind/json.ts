/**
 * Binding the json/jsonb operators and aggregates (PostgreSQL 15 docs 9.16): `a -> b` and the
 * other operators become calls of the library's operator entries (../functions/json.ts) with
 * PostgreSQL's operator resolution, and json_agg(x …) becomes array_agg(x …) handed to a final
 * function (../functions/json-build.ts), so that DISTINCT, ORDER BY and FILTER inside the call
 * work as array_agg's do.
 *
 *   j -> 'a'          → "->"(jsonb,text)(j, 'a')
 *   json_agg(x ORDER BY y) → json_agg_final(array_agg(x ORDER BY y))
 *   json_object_agg(k, v)  → json_object_agg_final(array_agg(json_build_array(k, v)))
 */
import { type PgType, SQLSTATE, pgDisplayName } from '../../types/index.js';
import type { AstFields, AstNode } from '../parse.js';
import { type Expr, E } from '../expr.js';
import { T, categoryOf } from '../types.js';
import { SqlError, undefinedOperator } from '../errors.js';
import { type FnBinder, bindFunction } from './functions.js';
import { JSON_AGGREGATES } from './json-aggregates.js';

/** The operators of json and jsonb (`@>` and `<@` also mean array containment, `||` and `-` more). */
const JSON_OPERATORS = new Set(['->', '->>', '#>', '#>>', '@>', '<@', '?', '?|', '?&', '||', '-', '#-']);

const isJson = (t: PgType) => t.id === 'json' || t.id === 'jsonb';

/**
 * `l op r` when it is a json/jsonb operator, else null (the other operators bind it). An
 * operator that exists for neither operand types is 42883 `operator does not exist: jsonb -> boolean`.
 */
export function bindJsonOperator(op: string, l: Expr, r: Expr, location: number, b: FnBinder): Expr | null {
  if (!JSON_OPERATORS.has(op)) return null;
  const lu = b.isUnknown(l);
  const ru = b.isUnknown(r);
  const json = isJson(l.type) && !lu ? 'left' : isJson(r.type) && !ru ? 'right' : null;
  if (json === null) {
    // Two unknown literals: `'{}' -> 'a'` is ambiguous in PostgreSQL as well (42725).
    if (lu && ru && op !== '||' && op !== '-') throw new SqlError('invalid_input', SQLSTATE.ambiguous_function, `operator is not unique: unknown ${op} unknown`);
    return null;
  }
  // `jsonb || text` is textanycat (the jsonb printed), not jsonb concatenation.
  if (op === '||' && (categoryOf(l.type) === 'string' || categoryOf(r.type) === 'string') && !lu && !ru)
    return E.func('textcat', [b.cast(l, T.text, location), b.cast(r, T.text, location)], T.text);
  try {
    return bindFunction(op, [l, r], location, b);
  } catch (e) {
    if (e instanceof SqlError && e.code === SQLSTATE.undefined_function) throw undefinedOperator(`${lu ? 'unknown' : pgDisplayName(l.type)} ${op} ${ru ? 'unknown' : pgDisplayName(r.type)}`, location);
    throw e;
  }
}

const nameNode = (s: string): AstNode => ({ String: { sval: s } });

/**
 * json_agg(x …) as its final over array_agg(x …): `aggregate` binds the rewritten array_agg
 * call (FuncCall fields) as the binder binds any aggregate.
 */
export function bindJsonAggregate(name: string, n: AstFields, aggregate: (call: AstFields) => Expr, b: FnBinder): Expr {
  const args = (n.args ?? []) as AstNode[];
  const object = name.endsWith('object_agg');
  if (n.agg_star === true || args.length !== (object ? 2 : 1)) {
    const e = new SqlError('not_found', SQLSTATE.undefined_function, `function ${name}(${n.agg_star === true ? '*' : args.map(() => '…').join(', ')}) does not exist`);
    throw e;
  }
  const pair: AstNode = { FuncCall: { funcname: [nameNode('json_build_array')], args, location: n.location, funcformat: 'COERCE_EXPLICIT_CALL' } };
  const call: AstFields = { ...n, funcname: [nameNode('array_agg')], args: object ? [pair] : args };
  const arr = aggregate(call);
  return bindFunction(JSON_AGGREGATES[name]!, [arr], n.location as number, b)!;
}
