/**
 * The function library's one table: every family's signatures by name, each with a key that
 * the bound call (../expr.ts `func` with a LibraryFn) carries so the interpreter finds its
 * kernel without resolving again. Keys are PostgreSQL's own spelling of the signature:
 *
 *   split_part(text,text,int4)    concat_ws(text,variadic any)    random()
 *
 * Binding (bindLibraryCall) resolves among a name's signatures with ./resolve.ts, casts the
 * arguments, and folds immutable calls over constants (the binder's `fold`).
 */
import { type PgType, type Value, internalError } from '../../types/index.js';
import type { LibraryFn } from '../expr.js';
import type { Family, Signature } from './signature.js';
import { STRING_FUNCTIONS } from './strings.js';
import { MATH_FUNCTIONS } from './math.js';
import { REGEX_FUNCTIONS } from './regex.js';
import { SYSTEM_FUNCTIONS } from './system.js';
import { DATETIME_FUNCTIONS } from './datetime.js';
import { ARRAY_FUNCTIONS } from './arrays.js';
import { FORMATTING_FUNCTIONS } from './formatting.js';
import { SET_RETURNING_FUNCTIONS } from './set-returning.js';
import { JSON_FUNCTIONS } from './json.js';
import { JSON_BUILD_FUNCTIONS } from './json-build.js';
import { JSON_SET_RETURNING_FUNCTIONS } from './json-set-returning.js';
import { CATALOG_FUNCTIONS } from '../catalog/functions.js';

const FAMILIES: readonly Family[] = [STRING_FUNCTIONS, MATH_FUNCTIONS, REGEX_FUNCTIONS, SYSTEM_FUNCTIONS, DATETIME_FUNCTIONS, ARRAY_FUNCTIONS, FORMATTING_FUNCTIONS, SET_RETURNING_FUNCTIONS, JSON_FUNCTIONS, JSON_BUILD_FUNCTIONS, JSON_SET_RETURNING_FUNCTIONS, CATALOG_FUNCTIONS];

export interface Entry {
  readonly key: LibraryFn;
  readonly name: string;
  readonly sig: Signature;
}

const byName = new Map<string, Entry[]>();
const byKey = new Map<string, Entry>();

function keyOf(name: string, s: Signature): LibraryFn {
  const params: string[] = s.params.map((p) => p.id);
  if (s.variadic !== undefined) params.push(`variadic ${s.variadic === 'any' ? 'any' : s.variadic.id}`);
  return `${name}(${params.join(',')})`;
}

for (const family of FAMILIES) {
  for (const [name, sigs] of Object.entries(family)) {
    const list = byName.get(name) ?? [];
    for (const sig of sigs) {
      const e: Entry = Object.freeze({ key: keyOf(name, sig), name, sig });
      if (byKey.has(e.key)) throw internalError(`internal error: function ${e.key} is registered twice`);
      byKey.set(e.key, e);
      list.push(e);
    }
    byName.set(name, list);
  }
}

/** The signatures of `name`, or undefined when the library has none. */
export function signaturesOf(name: string): readonly Entry[] | undefined {
  return byName.get(name);
}

/** Every signature of the library, in registration order (pg_proc's rows: src/engine/catalog/pg-proc.ts). */
export function libraryEntries(): readonly Entry[] {
  return [...byKey.values()];
}

/** The entry of a bound call's key. */
export function entryOf(key: string): Entry {
  const e = byKey.get(key);
  if (e === undefined) throw internalError(`internal error: no library function ${key}`);
  return e;
}

/** Whether a function key names a library function (the binder's older functions do not). */
export function isLibraryFn(fn: string): fn is LibraryFn {
  return byKey.has(fn);
}

/** The SQL name of a library call, for EXPLAIN: `split_part(text,text,int4)` → `split_part`. */
export function libraryName(fn: LibraryFn): string {
  return fn.slice(0, fn.indexOf('('));
}

/** Whether a call may be evaluated once at bind time when its arguments are constants. */
export function isFoldable(fn: string): boolean {
  const e = byKey.get(fn);
  return e === undefined || ((e.sig.volatility ?? 'immutable') === 'immutable' && e.sig.setReturning === undefined);
}

/** Whether `name`'s signatures return sets (./set-returning.ts): the binder moves such calls to FROM. */
export function isSetReturning(name: string): boolean {
  return byName.get(name)?.every((e) => e.sig.setReturning !== undefined) ?? false;
}

/**
 * A batch of a library call: `args` are the argument columns, `types` the arguments' types.
 * One argument row is reused across the batch (no allocation per row).
 */
export function evalLibrary(fn: LibraryFn, args: readonly Value[][], types: readonly PgType[], n: number): Value[] {
  const { sig } = entryOf(fn);
  const strict = sig.strict ?? true;
  const out = new Array<Value>(n);
  const row = new Array<Value>(args.length);
  outer: for (let i = 0; i < n; i++) {
    for (let j = 0; j < args.length; j++) {
      const v = args[j]![i]!;
      if (v === null && strict) {
        out[i] = null;
        continue outer;
      }
      row[j] = v;
    }
    out[i] = sig.kernel(row, types);
  }
  return out;
}
