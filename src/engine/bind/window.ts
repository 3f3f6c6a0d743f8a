/**
 * Binding window function calls (PostgreSQL 15 docs 4.2.8, 9.22, and parse_clause.c's
 * transformWindowDefinitions for the rules): `f(…) OVER (…)`, `OVER w`, `OVER (w …)` and the
 * SELECT's WINDOW clause, into ../ir.ts's WindowClause.
 *
 * A call binds to a placeholder column (slot -1 - k for call k) while the select list and ORDER
 * BY are bound; `finish` knows the width of the rows the WindowAgg step reads and puts the real
 * slot (base + k) in place. Calls over equal window specifications share one spec, so the
 * step sorts once for them.
 */
import { isJsonAggregate } from './json-aggregates.js';
import { type PgType, type Value, SQLSTATE, arrayOf, pgDisplayName } from '../../types/index.js';
import { type AstFields, type AstNode, fieldsOf, str } from '../parse.js';
import { type ArithOp, type Expr, E, exprKey, substitute } from '../expr.js';
import { type AggCall, type AggName, type OrderItem, DEFAULT_FRAME, type Frame, type FrameBound, type FrameExclusion, type WindowCall, type WindowClause, type WindowFnName, type WindowSpec } from '../ir.js';
import { T, categoryOf, isFloat, isInteger } from '../types.js';
import { datatypeMismatch, notSupported, positionOf, SqlError, undefinedFunction } from '../errors.js';
import { AGGREGATES, AGGREGATE_ALIAS, aggregateType, checkSortable } from './catalog.js';
import { isUnknownText, resolveUnknown, unknownLiterals } from './literals.js';
import type { Mode } from './scope.js';

/** Functions that exist only as window functions: called without OVER they are 42809. */
const WINDOW_ONLY: ReadonlySet<string> = new Set(['row_number', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value']);
/** Window functions that are also hypothetical-set aggregates (with WITHIN GROUP). */
const HYPOTHETICAL: ReadonlySet<string> = new Set(['rank', 'dense_rank', 'percent_rank', 'cume_dist']);

export function windowOnlyWithoutOver(n: AstFields): SqlError | null {
  const names = (n.funcname as AstNode[]).map(str);
  const name = names[names.length - 1]!.toLowerCase();
  if (!(WINDOW_ONLY.has(name) || (HYPOTHETICAL.has(name) && n.agg_within_group !== true)) || (names.length === 2 && names[0] !== 'pg_catalog')) return null;
  return new SqlError('invalid_input', SQLSTATE.wrong_object_type, `window function ${name} requires an OVER clause`, positionOf(n.location as number));
}

/** What the window binder borrows from the Binder (./select.ts). */
export interface WindowHost {
  expr(node: AstNode, mode: Mode): Expr;
  cast(e: Expr, type: PgType, location?: number): Expr;
  arith(op: ArithOp, l: Expr, r: Expr, location: number): Expr;
  unify(exprs: Expr[], what: string, location?: number): Expr[];
  condition(node: AstNode, mode: Mode, clause: string): Expr;
  constArg(node: AstNode, type: PgType, what: string): Value;
}

/** A call before its window is known. */
type CallBody = WindowCall extends infer C ? (C extends WindowCall ? Omit<C, 'window'> : never) : never;

const WINDOW_FUNCTIONS: ReadonlySet<string> = new Set<WindowFnName>(['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value']);

/** Bits of a WindowDef's frameOptions (PostgreSQL's parsenodes.h FRAMEOPTION_*). */
const F = {
  nondefault: 0x1,
  range: 0x2,
  rows: 0x4,
  groups: 0x8,
  startUnboundedPreceding: 0x20,
  endUnboundedFollowing: 0x100,
  startCurrentRow: 0x200,
  endCurrentRow: 0x400,
  startOffsetPreceding: 0x800,
  endOffsetPreceding: 0x1000,
  startOffsetFollowing: 0x2000,
  endOffsetFollowing: 0x4000,
  excludeCurrentRow: 0x8000,
  excludeGroup: 0x10000,
  excludeTies: 0x20000,
} as const;

export function windowingError(message: string, location?: number): SqlError {
  return new SqlError('invalid_input', SQLSTATE.windowing_error, message, positionOf(location));
}

interface NamedWindow {
  readonly name: string;
  readonly spec: WindowSpec;
  /** Whether the definition has a frame clause (then it cannot be copied by OVER (w …)). */
  readonly framed: boolean;
}

export class WindowBinding {
  /** Whether window functions may appear where binding is now: the select list and ORDER BY. */
  allowed = false;
  private inside: 'arguments' | 'definition' | null = null;
  private readonly named = new Map<string, NamedWindow>();
  private readonly specs: WindowSpec[] = [];
  private readonly specKeys: string[] = [];
  private readonly calls: WindowCall[] = [];

  constructor(private readonly host: WindowHost) {}

  /** The WINDOW clause, in order: a definition may name only earlier ones. */
  define(clause: readonly AstNode[] | undefined, mode: Mode): void {
    for (const d of clause ?? []) {
      const w = fieldsOf(d);
      const name = w.name as string;
      if (this.named.has(name)) throw windowingError(`window "${name}" is already defined`, w.location as number);
      const spec = this.spec(w, mode, name);
      this.named.set(name, { name, spec, framed: ((w.frameOptions as number) & F.nondefault) !== 0 });
    }
  }

  /** A FuncCall with OVER: its placeholder column. `clause` names where it stands when not allowed. */
  call(n: AstFields, mode: Mode): Expr {
    const location = n.location as number;
    if (this.inside === 'arguments') throw windowingError('window function calls cannot be nested', location);
    if (this.inside === 'definition') throw windowingError('window functions are not allowed in window definitions', location);
    // The select list and ORDER BY, not an aggregate's arguments or FILTER inside them.
    if (!this.allowed || (mode.kind === 'scalar' && mode.clause !== 'SELECT')) {
      const clause = mode.kind === 'scalar' ? mode.clause : 'HAVING';
      if (clause === 'aggregate arguments') throw new SqlError('invalid_input', SQLSTATE.grouping_error, 'aggregate function calls cannot contain window function calls', positionOf(location));
      throw windowingError(`window functions are not allowed in ${clause}`, location);
    }
    const names = (n.funcname as AstNode[]).map(str);
    const name0 = names[names.length - 1]!.toLowerCase();
    let bound: { call: CallBody } | null;
    this.inside = 'arguments';
    try {
      bound = WINDOW_FUNCTIONS.has(name0) ? { call: this.windowFunction(name0 as WindowFnName, n, mode) } : AGGREGATES.has(name0) ? { call: this.aggregate(name0, n, mode) } : null;
    } finally {
      this.inside = null;
    }
    if (bound === null && isJsonAggregate(name0)) throw notSupported(`${name0}() OVER (…)`, location);
    if (bound === null) {
      // A scalar function with OVER: 42809 when it exists (else its own error, 42883 or 0A000).
      const { over: _over, ...plain } = n;
      this.host.expr({ FuncCall: plain }, mode);
      throw new SqlError('invalid_input', SQLSTATE.wrong_object_type, `OVER specified, but ${name0} is not a window function nor an aggregate function`, positionOf(location));
    }
    const window = this.windowOf(fieldsOf({ WindowDef: n.over as AstFields } as AstNode), mode);
    const c = Object.freeze({ ...bound.call, window } as WindowCall);
    this.calls.push(c);
    return E.column(-1 - (this.calls.length - 1), c.type, name0);
  }

  /** The bound clause, placeholders replaced by slots from `base`; undefined without calls. */
  finish(base: number): { clause: WindowClause | undefined; place: (e: Expr) => Expr } {
    if (this.calls.length === 0) return { clause: undefined, place: (e) => e };
    const place = (e: Expr): Expr => substitute(e, (x) => (x.kind === 'column' && x.slot < 0 ? E.column(base - 1 - x.slot, x.type, x.name) : null));
    return { clause: Object.freeze({ specs: Object.freeze([...this.specs]), calls: Object.freeze([...this.calls]), base }), place };
  }

  /** OVER w uses w as it is; OVER (w …) copies w's partition and order (docs 4.2.8). */
  private windowOf(w: AstFields, mode: Mode): number {
    if (w.name !== undefined && w.refname === undefined) {
      const nw = this.named.get(w.name as string);
      if (nw === undefined) throw new SqlError('not_found', SQLSTATE.undefined_object, `window "${w.name as string}" does not exist`, positionOf(w.location as number));
      return this.intern(nw.spec);
    }
    return this.intern(this.spec(w, mode, `w${this.specs.length + 1}`));
  }

  private intern(s: WindowSpec): number {
    const key = exprKey(E.const(JSON.stringify([s.partition.map(exprKey), s.order.map((o) => [exprKey(o.expr), o.desc, o.nullsFirst]), JSON.stringify(s.frame, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))]), T.text));
    const k = this.specKeys.indexOf(key);
    if (k >= 0) return k;
    this.specs.push(s);
    this.specKeys.push(key);
    return this.specs.length - 1;
  }

  /** A window definition: its own clauses, or those it copies from `refname`. */
  private spec(w: AstFields, mode: Mode, name: string): WindowSpec {
    const location = w.location as number;
    let partition: Expr[] = [];
    let order: OrderItem[] = [];
    const saved = this.inside;
    this.inside = 'definition';
    try {
      if (w.refname !== undefined) {
        const ref = this.named.get(w.refname as string);
        if (ref === undefined) throw new SqlError('not_found', SQLSTATE.undefined_object, `window "${w.refname as string}" does not exist`, positionOf(location));
        if (w.partitionClause !== undefined) throw windowingError(`cannot override PARTITION BY clause of window "${ref.name}"`, location);
        if (w.orderClause !== undefined && ref.spec.order.length > 0) throw windowingError(`cannot override ORDER BY clause of window "${ref.name}"`, location);
        if (ref.framed) {
          const e = windowingError(`cannot copy window "${ref.name}" because it has a frame clause`, location);
          if (w.orderClause === undefined && ((w.frameOptions as number) & F.nondefault) === 0) Object.assign(e, { hint: 'Omit the parentheses in this OVER clause.' });
          throw e;
        }
        partition = [...ref.spec.partition];
        order = [...ref.spec.order];
      }
      for (const p of (w.partitionClause ?? []) as AstNode[]) {
        const e = resolveUnknown(this.host.expr(p, mode));
        checkSortable(e.type, fieldsOf(p).location as number | undefined);
        partition.push(e);
      }
      for (const o of (w.orderClause ?? []) as AstNode[]) order.push(this.orderItem(fieldsOf(o), mode));
    } finally {
      this.inside = saved;
    }
    const frame = this.frame(w, order, location);
    return Object.freeze({ partition: Object.freeze(partition), order: Object.freeze(order), frame, name });
  }

  /** A window's ORDER BY item: an expression by SQL:1999's rules (a number is a constant, not a position). */
  private orderItem(o: AstFields, mode: Mode): OrderItem {
    if (o.useOp !== undefined) throw notSupported('ORDER BY … USING');
    const desc = o.sortby_dir === 'SORTBY_DESC';
    const nullsFirst = o.sortby_nulls === 'SORTBY_NULLS_FIRST' ? true : o.sortby_nulls === 'SORTBY_NULLS_LAST' ? false : desc;
    const expr = resolveUnknown(this.host.expr(o.node as AstNode, mode));
    checkSortable(expr.type, fieldsOf(o.node as AstNode).location as number | undefined);
    return Object.freeze({ expr, desc, nullsFirst });
  }

  private frame(w: AstFields, order: readonly OrderItem[], location: number): Frame {
    const fo = w.frameOptions as number;
    if ((fo & F.nondefault) === 0) return DEFAULT_FRAME;
    const unit = fo & F.rows ? 'rows' : fo & F.groups ? 'groups' : 'range';
    if (unit === 'groups' && order.length === 0) throw windowingError('GROUPS mode requires an ORDER BY clause', location);
    const hasOffset = (fo & (F.startOffsetPreceding | F.startOffsetFollowing | F.endOffsetPreceding | F.endOffsetFollowing)) !== 0;
    if (unit === 'range' && hasOffset && order.length !== 1) throw windowingError('RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column', location);
    const bound = (unbounded: number, current: number, preceding: number, following: number, offset: AstNode | undefined): FrameBound => {
      if (fo & unbounded) return Object.freeze({ kind: 'unbounded' });
      if (fo & current) return Object.freeze({ kind: 'current' });
      const isFollowing = (fo & following) !== 0;
      if ((fo & preceding) === 0 && !isFollowing) throw new Error(`frameOptions ${fo} name no frame bound`);
      return this.offsetBound(unit, offset!, isFollowing, order[0]);
    };
    const start = bound(F.startUnboundedPreceding, F.startCurrentRow, F.startOffsetPreceding, F.startOffsetFollowing, w.startOffset as AstNode | undefined);
    const end = bound(F.endUnboundedFollowing, F.endCurrentRow, F.endOffsetPreceding, F.endOffsetFollowing, w.endOffset as AstNode | undefined);
    const exclude: FrameExclusion = fo & F.excludeCurrentRow ? 'current' : fo & F.excludeGroup ? 'group' : fo & F.excludeTies ? 'ties' : 'no-others';
    return Object.freeze({ unit, start, end, exclude });
  }

  /** An offset PRECEDING/FOLLOWING: int8 for ROWS and GROUPS; for RANGE, the in_range arithmetic of the key's type. */
  private offsetBound(unit: Frame['unit'], node: AstNode, following: boolean, key: OrderItem | undefined): FrameBound {
    const what = unit.toUpperCase();
    const location = fieldsOf(node).location as number | undefined;
    const saved = this.inside;
    this.inside = 'definition';
    let raw: Expr;
    try {
      raw = this.host.expr(node, { kind: 'scalar', clause: `window ${what}` });
    } finally {
      this.inside = saved;
    }
    let variable = false;
    substitute(raw, (x) => {
      if (x.kind === 'column') variable = true;
      return null;
    });
    if (variable) throw new SqlError('invalid_input', SQLSTATE.invalid_column_reference, `argument of ${what} must not contain variables`, positionOf(location));
    if (unit !== 'range') {
      // coerce_to_specific_type: an assignment cast (1.5 rounds to 2).
      if (!unknownLiterals.has(raw) && categoryOf(raw.type) !== 'numeric') throw datatypeMismatch(`argument of ${what} must be type bigint, not type ${pgDisplayName(raw.type)}`, location);
      return Object.freeze({ kind: 'offset', following, offset: this.host.cast(raw, T.int8, location) });
    }
    const k = key!.expr;
    const offsetType = rangeOffsetType(k.type, raw, location);
    const offset = this.host.cast(raw, offsetType, location);
    // int8 keys add in numeric, so that key ± offset cannot overflow (in_range_int8_int8 treats an overflow as in range).
    const base = k.type.id === 'int8' ? this.host.cast(k, T.numeric) : isInteger(k.type) ? this.host.cast(k, T.int8) : k;
    const off = k.type.id === 'int8' ? this.host.cast(offset, T.numeric) : offset;
    const subtract = following === key!.desc;
    const bound = this.host.arith(subtract ? '-' : '+', base, off, location ?? -1);
    const cmpKey = bound.type.id === base.type.id ? base : this.host.cast(base, bound.type);
    return Object.freeze({ kind: 'offset', following, offset, range: Object.freeze({ key: cmpKey, bound }) });
  }

  /** row_number() … nth_value(x, n): arity and argument types of PostgreSQL 15's signatures. */
  private windowFunction(fn: WindowFnName, n: AstFields, mode: Mode): CallBody {
    const location = n.location as number;
    const args = ((n.args ?? []) as AstNode[]).map((a) => this.host.expr(a, mode));
    if (n.agg_filter !== undefined) throw notSupported('FILTER for non-aggregate window functions', location);
    if (n.agg_distinct === true) throw notSupported('DISTINCT for window functions', location);
    if (n.agg_order !== undefined) throw notSupported('ORDER BY in window function arguments', location);
    const sig = () => undefinedFunction(`${fn}(${args.map((a) => (unknownLiterals.has(a) ? 'unknown' : pgDisplayName(a.type))).join(', ')})`, location);
    const int4 = (e: Expr): Expr => {
      if (unknownLiterals.has(e) || e.type.id === 'int2' || e.type.id === 'int4') return this.host.cast(e, T.int4);
      throw sig();
    };
    const value = (e: Expr): Expr => {
      if (unknownLiterals.has(e)) throw datatypeMismatch('could not determine polymorphic type because input has type unknown', location);
      return e;
    };
    const make = (a: Expr[], type: PgType) => ({ kind: 'fn' as const, fn, args: Object.freeze(a), type });
    switch (fn) {
      case 'row_number':
        if (args.length !== 0) throw sig();
        return make([], T.int8);
      case 'rank':
      case 'dense_rank':
      case 'percent_rank':
      case 'cume_dist':
        // With arguments these name the hypothetical-set aggregates, which need WITHIN GROUP.
        if (args.length !== 0) throw new SqlError('invalid_input', SQLSTATE.wrong_object_type, `WITHIN GROUP is required for ordered-set aggregate ${fn}`, positionOf(location));
        return make([], fn === 'rank' || fn === 'dense_rank' ? T.int8 : T.float8);
      case 'ntile':
        if (args.length !== 1) throw sig();
        return make([int4(args[0]!)], T.int4);
      case 'lag':
      case 'lead': {
        if (args.length < 1 || args.length > 3) throw sig();
        const offset = args.length > 1 ? int4(args[1]!) : E.const(1, T.int4);
        if (args.length < 3) {
          const x = value(args[0]!);
          return make([x, offset], x.type);
        }
        // lag(anycompatible, integer, anycompatible): the value and the default unify (PostgreSQL 14+).
        const [x, d] = this.host.unify([args[0]!, args[2]!], fn, location);
        const xv = value(x!);
        return make([xv, offset, this.host.cast(d!, xv.type)], xv.type);
      }
      case 'first_value':
      case 'last_value': {
        if (args.length !== 1) throw sig();
        const x = value(args[0]!);
        return make([x], x.type);
      }
      case 'nth_value': {
        if (args.length !== 2) throw sig();
        const x = value(args[0]!);
        return make([x, int4(args[1]!)], x.type);
      }
      default: {
        const never: never = fn;
        throw new Error(`window function ${String(never)}`);
      }
    }
  }

  /** An aggregate used as a window function: over the frame, with FILTER; no DISTINCT or ORDER BY (PostgreSQL 15). */
  private aggregate(name0: string, n: AstFields, mode: Mode): CallBody {
    const location = n.location as number;
    const fn = AGGREGATE_ALIAS[name0] ?? (name0 as AggName);
    if (fn === 'percentile_cont' || fn === 'percentile_disc') throw notSupported(`OVER for ordered-set aggregate ${name0}`, location);
    if (n.agg_distinct === true) throw notSupported('DISTINCT for window functions', location);
    if (n.agg_order !== undefined) throw notSupported('aggregate ORDER BY for window functions', location);
    const args = (n.args ?? []) as AstNode[];
    let call: AggCall;
    if (n.agg_star === true) {
      if (fn !== 'count') throw new SqlError('invalid_input', SQLSTATE.syntax_error, `${name0}(*) specified, but ${name0} is not an aggregate function`, positionOf(location));
      call = { fn: 'count', arg: null, type: T.int8, distinct: false };
    } else if (fn === 'string_agg') {
      if (args.length !== 2) throw undefinedFunction(`string_agg with ${args.length} arguments`, location);
      const x = this.host.expr(args[0]!, mode);
      if (!unknownLiterals.has(x) && categoryOf(x.type) !== 'string') throw undefinedFunction(`string_agg(${pgDisplayName(x.type)}, text)`, location);
      const arg = x.type.id === 'text' && !unknownLiterals.has(x) ? x : this.host.cast(x, T.text);
      call = { fn, arg, type: T.text, distinct: false, param: this.host.constArg(args[1]!, T.text, 'string_agg delimiter') };
    } else {
      if (args.length !== 1) throw undefinedFunction(`${name0}() with ${args.length} arguments`, location);
      const bound = this.host.expr(args[0]!, mode);
      // min/max(varchar) are min/max(text) in PostgreSQL (bpchar has its own).
      const arg = isUnknownText(bound) || ((fn === 'min' || fn === 'max') && bound.type.id === 'varchar') ? this.host.cast(bound, T.text) : bound;
      if (fn === 'array_agg') {
        if (arg.type.id === 'array') throw notSupported('array_agg of arrays', location);
        call = { fn, arg, type: arrayOf(arg.type), distinct: false };
      } else call = { fn, arg, type: aggregateType(fn, arg.type, location), distinct: false };
    }
    if (n.agg_filter !== undefined) {
      const cond = this.host.condition(n.agg_filter as AstNode, mode, 'FILTER');
      const x = call.arg ?? E.const(1, T.int4);
      call = fn === 'string_agg' || fn === 'array_agg' ? { ...call, filter: cond } : { ...call, arg: E.case([{ cond, result: x }], E.const(null, x.type), x.type) };
    }
    return { kind: 'agg', agg: Object.freeze(call), type: call.type };
  }
}

/**
 * The offset type of RANGE … offset PRECEDING/FOLLOWING over a key of type `key` (the in_range
 * support functions of PostgreSQL 15's btree operator families): 0A000 for a key type without one.
 */
function rangeOffsetType(key: PgType, offset: Expr, location: number | undefined): PgType {
  const unknown = unknownLiterals.has(offset);
  const o = offset.type;
  const fail = () => notSupported(`RANGE with offset PRECEDING/FOLLOWING for column type ${pgDisplayName(key)} and offset type ${unknown ? 'unknown' : pgDisplayName(o)}`, location);
  if (isInteger(key)) {
    if (unknown) return key.id === 'int8' ? T.int8 : key;
    if (!isInteger(o)) throw fail();
    return key.id === 'int8' ? T.int8 : o;
  }
  if (key.id === 'numeric') {
    if (unknown || isInteger(o) || o.id === 'numeric') return T.numeric;
    throw fail();
  }
  if (isFloat(key)) {
    if (unknown || isInteger(o) || isFloat(o) || o.id === 'numeric') return T.float8;
    throw fail();
  }
  if (key.id === 'date' || key.id === 'timestamp' || key.id === 'timestamptz' || key.id === 'interval') {
    if (unknown || o.id === 'interval') return T.interval;
    throw fail();
  }
  throw notSupported(`RANGE with offset PRECEDING/FOLLOWING for column type ${pgDisplayName(key)}`, location);
}
