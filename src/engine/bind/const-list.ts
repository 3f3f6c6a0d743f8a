/**
 * The constants of a ConstList (../parse.ts: an IN list, ARRAY[…] or VALUES of more than 64
 * plain constants, in column form) bound in classes instead of one by one (issue #18: 100,000
 * constants bound, cast and compared node by node kept the event loop for hundreds of ms):
 *
 *   ARRAY[1, 2, 2.5, 'x', NULL]  →  classes int4 (1, 2), numeric (2.5), unknown ('x', NULL)
 *
 * The first constant of each class, as a node, goes through the binder itself (literal(), its
 * casts and comparisons), in the list's order, so its errors and types are the binder's; every
 * other constant of the class takes the same value conversion, the kernels that `cast` folds a
 * constant with (./operators.ts), checked against what the binder made of the first.
 */
import { type PgType, type Value, arrayOf, formatArrayText } from '../../types/index.js';
import { type Expr, E } from '../expr.js';
import type { ConstList } from '../parse.js';
import { castValue, fromText, toText } from '../exec/kernels.js';
import { engineTypeFor } from './catalog.js';
import { literal, unknownLiterals } from './literals.js';

type Const = Extract<Expr, { kind: 'const' }>;

/** Constants `at`, `at + step`, … of a list (a column of a VALUES), by class. */
export interface ConstClasses {
  /** Each constant's value as literal() gives it. */
  readonly values: Value[];
  /** Each constant's class: an index into `reps`. */
  readonly classes: Uint8Array;
  /** The first constant of each class, bound by literal(), in the order they first appear. */
  readonly reps: Const[];
}

export function constClasses(c: ConstList, at = 0, step = 1): ConstClasses {
  const n = Math.ceil((c.kinds.length - at) / step);
  const values: Value[] = new Array(n);
  const classes = new Uint8Array(n);
  const reps: Const[] = [];
  const repOf = new Map<string, number>();
  for (let i = 0, j = at; i < n; i++, j += step) {
    const kind = c.kinds[j]!;
    const v = c.values[j]!;
    let e: Const | null = null;
    let key = kind;
    if (kind === 'f') {
      // A numeric literal is an int4, an int8 or a numeric by its digits (make_const).
      e = literal({ fval: { fval: v } }) as Const;
      key = `f${e.type.id}`;
      values[i] = e.value;
    } else values[i] = v;
    let k = repOf.get(key);
    if (k === undefined) {
      k = reps.length;
      reps.push(e ?? (literal(constLiteral(kind, v)) as Const));
      repOf.set(key, k);
    }
    classes[i] = k;
  }
  return { values, classes, reps };
}

/** The A_Const fields literal() reads, for one constant of a ConstList (not 'f'). */
function constLiteral(kind: string, v: Value): Parameters<typeof literal>[0] {
  if (kind === 'i') return { ival: { ival: v } };
  if (kind === 's') return { sval: { sval: v } };
  if (kind === 'b') return { boolval: { boolval: v } };
  return { isnull: true };
}

/**
 * How a value of `rep`'s class becomes `out`, the constant the binder made of `rep` by casts
 * (an unknown string read by the input function of `readAs`, the type it was cast to first,
 * then cast to out's type); null when `out` is not a constant or the conversion does not give
 * it (a cast the kernels alone do not make: let the binder take the constants one by one).
 */
export function classConverter(rep: Const, out: Expr, readAs: PgType | null): ((v: Value) => Value) | null {
  if (out.kind !== 'const' || (rep.value === null) !== (out.value === null)) return null;
  const unknown = unknownLiterals.has(rep);
  const to = out.type;
  let f: (v: Value) => Value;
  if (unknown) {
    const t = readAs ?? to;
    const from = engineTypeFor(t);
    f = sameType(from, to) ? (v) => fromText(t, v as string) : (v) => castValue(from, to, fromText(t, v as string), false);
  } else f = sameType(rep.type, to) ? (v) => v : (v) => castValue(rep.type, to, v, false);
  return rep.value === null || sameValue(f(rep.value), out.value) ? f : null;
}

/**
 * `ARRAY[c1, c2, …]` of a ConstList: the array constant arrayConstructor (./expressions.ts)
 * makes of the elements unified to their common type (`unify`, 42804 when there is none;
 * all unknown: text), or null for the binder to build from the nodes.
 */
export function constArray(unify: (e: Expr[], what: string, location: number) => Expr[], asText: (e: Expr) => Expr, c: ConstList, location: number): Expr | null {
  const { values, classes, reps } = constClasses(c);
  const allUnknown = reps.every((e) => unknownLiterals.has(e));
  const outs = unify(allUnknown ? reps.map(asText) : reps, 'ARRAY', location);
  const type = outs[0]!.type;
  if (type.id === 'array') return null;
  const convert: ((v: Value) => Value)[] = [];
  for (const [k, rep] of reps.entries()) {
    const f = classConverter(rep, outs[k]!, null);
    if (f === null) return null;
    convert.push(f);
  }
  const texts: (string | null)[] = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    texts[i] = v === null ? null : toText(type, convert[classes[i]!]!(v));
  }
  return E.const(formatArrayText(texts), arrayOf(type));
}

/** Types a value needs no cast between (./operators.ts `cast`: varchar and bpchar always cast). */
function sameType(a: PgType, b: PgType): boolean {
  return a.id === b.id && b.id !== 'varchar' && b.id !== 'bpchar';
}

function sameValue(a: Value, b: Value): boolean {
  if (a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b))) return true;
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
