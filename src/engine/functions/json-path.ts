/**
 * jsonb updates at a path (PostgreSQL 15 docs 9.16, table 9.47; utils/adt/jsonfuncs.c setPath,
 * setPathObject, setPathArray): jsonb_set, jsonb_insert and `#-`. A path is a text[] of object
 * keys and array indexes (negative from the end).
 *
 *   jsonb_set('{"a": [1, 2]}', '{a,0}', '9') → {"a": [9, 2]}
 *   jsonb_set('[1, 2]', '{5}', '3') → [1, 2, 3]             (past the end: appended)
 *   jsonb_insert('{"a": [1, 2]}', '{a,0}', '0') → {"a": [0, 1, 2]}
 *   '{"a": {"b": 1, "c": 2}}'::jsonb #- '{a,b}' → {"a": {"c": 2}}
 */
import { type JsonValue, type PgType, type Value, J, SQLSTATE, jsonbText, normalizeJsonb, parseArrayText, parseJsonValue } from '../../types/index.js';
import { SqlError } from '../errors.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from './signature.js';

const JSONB: PgType = Object.freeze({ id: 'jsonb' });
const TEXT_ARRAY: PgType = Object.freeze({ id: 'array', element: T.text });

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel): Signature => Object.freeze({ params, result, kernel });

/**
 * An array index in a path, as jsonfuncs.c reads one with strtoint: optional blanks and sign,
 * decimal digits, nothing after; null when the text is not such an integer.
 */
export function jsonbArrayIndex(s: string): number | null {
  const m = /^[ \t\n\r\f\v]*([+-]?\d+)$/.exec(s);
  if (m === null) return null;
  const n = Number(m[1]);
  return n >= -2147483648 && n <= 2147483647 ? n : null;
}

/** What a path update does at its last step (jsonfuncs.c JB_PATH_*). */
type Op = 'replace' | 'create' | 'insert_before' | 'insert_after' | 'delete';

/** 22023, the code of jsonfuncs.c's "cannot … in scalar" errors (a HINT where PostgreSQL gives one). */
export function invalidParameter(message: string, hint?: string): SqlError {
  const e = new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, message);
  if (hint !== undefined) Object.assign(e, { hint });
  return e;
}

function notInteger(level: number, key: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_text_representation, `path element at position ${level + 1} is not an integer: "${key}"`);
}

const creates = (op: Op) => op === 'create' || op === 'insert_before' || op === 'insert_after';

/** setPath: `v` with the update at path[level…]; a scalar on the way is left as it is. */
function setPath(v: JsonValue, path: readonly (string | null)[], level: number, nv: JsonValue | null, op: Op): JsonValue {
  if (path[level] === null) throw new SqlError('invalid_input', SQLSTATE.null_value_not_allowed, `path element at position ${level + 1} is null`);
  if (v.t === 'object') return setObject(v, path, level, nv, op);
  if (v.t === 'array') return setArray(v, path, level, nv, op);
  return v;
}

function setObject(v: JsonValue & { t: 'object' }, path: readonly (string | null)[], level: number, nv: JsonValue | null, op: Op): JsonValue {
  const key = path[level];
  const last = level === path.length - 1;
  if (key === null || key === undefined) return v;
  const i = v.keys.indexOf(key);
  if (i < 0) {
    if (last && creates(op)) return J.object([...v.keys, key], [...v.vals, nv!]);
    return v;
  }
  if (!last) {
    const vals = [...v.vals];
    vals[i] = setPath(v.vals[i]!, path, level + 1, nv, op);
    return J.object(v.keys, vals);
  }
  if (op === 'insert_before' || op === 'insert_after') throw invalidParameter('cannot replace existing key', 'Try using the function jsonb_set to replace key value.');
  if (op === 'delete') return J.object(v.keys.filter((_, j) => j !== i), v.vals.filter((_, j) => j !== i));
  const vals = [...v.vals];
  vals[i] = nv!;
  return J.object(v.keys, vals);
}

function setArray(v: JsonValue & { t: 'array' }, path: readonly (string | null)[], level: number, nv: JsonValue | null, op: Op): JsonValue {
  const key = path[level];
  const last = level === path.length - 1;
  const n = v.v.length;
  let idx = 0;
  if (key !== null && key !== undefined) {
    const k = jsonbArrayIndex(key);
    if (k === null) throw notInteger(level, key);
    idx = k;
  }
  let before = false;
  if (idx < 0) {
    if (-idx > n) before = true;
    else idx = n + idx;
  }
  const out: JsonValue[] = [];
  let done = false;
  if ((before || n === 0) && last && creates(op)) {
    out.push(nv!);
    done = true;
  }
  for (let i = 0; i < n; i++) {
    const x = v.v[i]!;
    if (!before && i === idx && !done) {
      done = true;
      if (!last) out.push(setPath(x, path, level + 1, nv, op));
      else if (op === 'replace' || op === 'create') out.push(nv!);
      else if (op === 'insert_before') out.push(nv!, x);
      else if (op === 'insert_after') out.push(x, nv!);
      // delete: dropped
    } else out.push(x);
  }
  if (creates(op) && !done && last) out.push(nv!);
  return J.array(out);
}

function update(a: readonly Value[], op: Op): Value {
  const v = parseJsonValue(a[0] as string);
  const path = parseArrayText(a[1] as string);
  if (v.t !== 'object' && v.t !== 'array') throw invalidParameter(op === 'delete' ? 'cannot delete path in scalar' : 'cannot set path in scalar');
  if (path.length === 0) return a[0]!;
  const nv = op === 'delete' ? null : parseJsonValue(a[2] as string);
  return jsonbText(normalizeJsonb(setPath(v, path, 0, nv, op)));
}

export const JSON_PATH_FUNCTIONS: Family = Object.freeze({
  jsonb_set: [sig([JSONB, TEXT_ARRAY, JSONB], JSONB, (a) => update(a, 'create')), sig([JSONB, TEXT_ARRAY, JSONB, T.bool], JSONB, (a) => update(a, a[3] === true ? 'create' : 'replace'))],
  jsonb_insert: [sig([JSONB, TEXT_ARRAY, JSONB], JSONB, (a) => update(a, 'insert_before')), sig([JSONB, TEXT_ARRAY, JSONB, T.bool], JSONB, (a) => update(a, a[3] === true ? 'insert_after' : 'insert_before'))],
  '#-': [sig([JSONB, TEXT_ARRAY], JSONB, (a) => update(a, 'delete'))],
  jsonb_delete_path: [sig([JSONB, TEXT_ARRAY], JSONB, (a) => update(a, 'delete'))],
});
