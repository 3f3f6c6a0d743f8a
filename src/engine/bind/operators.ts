/**
 * Operators and casts: arithmetic, comparisons (with the common type of PostgreSQL's rules,
 * ../types.ts), casts folded for constants, LIKE and regular expressions, ||. The second layer
 * of the Binder (./select.ts).
 */
import { type PgType, isRegType, pgDisplayName } from '../../types/index.js';
import { type AstNode, fieldsOf, kindOf, str } from '../parse.js';
import { type ArithOp, type CmpOp, type Expr, BOOL, E } from '../expr.js';
import { T, categoryOf, commonType, comparisonType, engineType, isFloat, numericCommon } from '../types.js';
import { checkEscape } from '../exec/strings.js';
import { datatypeMismatch, notSupported, type SqlError, undefinedOperator } from '../errors.js';
import { castValue, fromText } from '../exec/kernels.js';
import { type FnBinder, bindDateTimeArith, bindNegate, dateComparison, numericTypmod } from './functions.js';
import { canonicalTid } from '../ctid.js';
import { regexFor } from '../exec/regex.js';
import { checkCast, engineTypeFor, ctidExprs } from './catalog.js';
import { declaredTypes, unknownLiterals, inferParam, negateConst } from './literals.js';
import { type Mode, ScopeBinder } from './scope.js';

export abstract class OperatorBinder extends ScopeBinder {
  /** What ./functions.ts borrows to bind date/time and math calls. */
  protected get fn(): FnBinder {
    return { cast: (e, t, l) => this.cast(e, t, l), isUnknown: (e) => unknownLiterals.has(e), unify: (x, w, l) => this.unify(x, w, l) };
  }

  /** `text ~ pattern` and its case-insensitive and negated forms; a constant pattern is checked now. */
  protected regex(l0: Expr, p0: Expr, op: string, location: number): Expr {
    const fail = () => undefinedOperator(`${pgDisplayName(l0.type)} ${op} ${unknownLiterals.has(p0) ? 'unknown' : pgDisplayName(p0.type)}`, location);
    const l = this.text(l0, fail);
    const p = this.text(p0, fail);
    const ci = op.includes('*');
    if (p.kind === 'const' && p.value !== null) regexFor(p.value as string, ci);
    const m = E.func(ci ? 'texticregexeq' : 'textregexeq', [l, p], BOOL);
    return op.startsWith('!') ? E.not(m) : m;
  }

  /** ctid = / <> tid text: the other side is canonicalized (22P02 when it is not a tid). */
  protected compareTid(op: CmpOp, l0: Expr, r0: Expr, location: number): Expr {
    if (op !== '=' && op !== '<>') throw notSupported(`operator ${op} on ctid`, location);
    const side = (e: Expr): Expr => {
      if (ctidExprs.has(e)) return e;
      inferParam(e, T.text);
      if (e.kind === 'const' && (unknownLiterals.has(e) || categoryOf(e.type) === 'string')) return E.const(e.value === null ? null : canonicalTid(String(e.value)), T.text);
      throw undefinedOperator(`tid ${op} ${pgDisplayName(e.type)}`, location);
    };
    return E.cmp(op, side(l0), side(r0));
  }

  protected negate(arg: Expr, location: number): Expr {
    const a = unknownLiterals.has(arg) ? this.cast(arg, T.numeric, location) : arg;
    const iv = bindNegate(a);
    if (iv !== null) return iv;
    if (categoryOf(a.type) !== 'numeric') throw undefinedOperator(`- ${pgDisplayName(a.type)}`, location);
    if (a.kind === 'const') return E.const(a.value === null ? null : negateConst(a), a.type);
    return E.neg(a);
  }

  protected arith(op: ArithOp, l0: Expr, r0: Expr, location: number): Expr {
    const temporal = bindDateTimeArith(op, l0, r0, location, this.fn);
    if (temporal !== null) return temporal;
    // An unknown literal takes the other side's type (both unknown: PostgreSQL cannot choose).
    const l = unknownLiterals.has(l0) && !unknownLiterals.has(r0) ? this.cast(l0, r0.type, location) : l0;
    const r = unknownLiterals.has(r0) && !unknownLiterals.has(l0) ? this.cast(r0, l.type, location) : r0;
    if (categoryOf(l.type) !== 'numeric' || categoryOf(r.type) !== 'numeric' || unknownLiterals.has(l))
      throw undefinedOperator(`${pgDisplayName(l.type)} ${op} ${pgDisplayName(r.type)}`, location);
    const type = numericCommon(l.type, r.type);
    if (op === '%' && isFloat(type)) throw undefinedOperator(`${pgDisplayName(type)} % ${pgDisplayName(type)}`, location);
    return E.arith(op, this.cast(l, type, location), this.cast(r, type, location), type);
  }

  protected override compare(op: CmpOp, l0: Expr, r0: Expr, location: number): Expr {
    if (ctidExprs.has(l0) || ctidExprs.has(r0)) return this.compareTid(op, l0, r0, location);
    const l = unknownLiterals.has(l0) && !unknownLiterals.has(r0) ? this.cast(l0, r0.type, location) : l0;
    const r = unknownLiterals.has(r0) && !unknownLiterals.has(l0) ? this.cast(r0, l.type, location) : r0;
    const type = unknownLiterals.has(l) && unknownLiterals.has(r) ? T.text : comparisonType(l.type, r.type);
    if (type === null || type.id === 'json') throw undefinedOperator(`${pgDisplayName(l.type)} ${op} ${pgDisplayName(r.type)}`, location);
    if (type.id === 'jsonb') {
      // jsonb's = and <> compare values (1.0 = 1 inside documents): text of the comparison keys.
      // The order operators compare by jsonb_cmp (../../types/json-compare.ts).
      if (op !== '=' && op !== '<>') return E.cmp(op, E.func('jsonb_cmp(jsonb,jsonb)', [this.cast(l, type, location), this.cast(r, type, location)], T.int4), E.const(0, T.int4));
      return E.cmp(op, E.func('jsonb_eqkey', [this.cast(l, type, location)], T.text), E.func('jsonb_eqkey', [this.cast(r, type, location)], T.text));
    }
    const lc = this.cast(l, type, location);
    const rc = this.cast(r, type, location);
    return dateComparison(op, lc, rc) ?? E.cmp(op, lc, rc);
  }

  /** A cast to `type`, folded when the argument is a constant (so scans can use it); `explicit` for one written in SQL. */
  protected cast(e: Expr, type: PgType, location?: number, explicit = false): Expr {
    // `$1::regtype` takes its parameter as text: the name is read by the catalog at execution
    // (../catalog/reg-io.ts), which the wire's parameter decoding has no access to.
    inferParam(e, isRegType(type) ? T.text : type);
    const to = engineType(type);
    // numeric(p,s): the engine computes in unconstrained numeric, then rounds and checks (apply_typmod).
    if (to !== type && type.id === 'numeric' && type.precision !== undefined) {
      const r = numericTypmod(this.cast(e, to, location), type.precision, type.scale ?? 0);
      declaredTypes.set(r, type);
      return r;
    }
    if (e.type.id === to.id && !unknownLiterals.has(e) && to.id !== 'varchar' && to.id !== 'bpchar') return e;
    if (!unknownLiterals.has(e)) checkCast(e.type, to, location);
    if (e.kind === 'const') {
      if (e.value === null) return E.const(null, to);
      if (unknownLiterals.has(e)) return E.const(explicit && type.length !== undefined ? castValue(T.text, type, e.value, true) : fromText(type, e.value as string), engineTypeFor(type));
      return E.const(castValue(e.type, to, e.value, explicit), to);
    }
    return E.cast(e, to, explicit);
  }

  protected coerce(e: Expr, type: PgType, _node: AstNode): Expr {
    return unknownLiterals.has(e) ? this.cast(e, type) : e;
  }

  /** A string operand: unknown literals become text, varchar and bpchar cast to text; else 42883 via `fail`. */
  protected text(e: Expr, fail: () => SqlError): Expr {
    if (unknownLiterals.has(e)) return this.cast(e, T.text);
    if (categoryOf(e.type) !== 'string') throw fail();
    return e.type.id === 'text' ? e : this.cast(e, T.text);
  }

  /** An integer operand of a string function: int2/int4 (or an unknown literal) as int4. */
  protected int4(e: Expr, fail: () => SqlError): Expr {
    if (unknownLiterals.has(e)) return this.cast(e, T.int4);
    if (e.type.id !== 'int2' && e.type.id !== 'int4') throw fail();
    return this.cast(e, T.int4);
  }

  /** Casts expressions to their common type (CASE branches, COALESCE arguments); 42804 when none. */
  protected override unify(exprs: Expr[], what: string, location?: number): Expr[] {
    const typed = exprs.filter((e) => !unknownLiterals.has(e)).map((e) => e.type);
    const type = commonType(typed, typed.length < exprs.length);
    if (type === null) {
      const other = typed.find((t) => categoryOf(t) !== categoryOf(typed[0]!))!;
      throw datatypeMismatch(`${what} types ${pgDisplayName(typed[0]!)} and ${pgDisplayName(other)} cannot be matched`, location);
    }
    return exprs.map((e) => this.cast(e, type, location));
  }

  /** [NOT] LIKE / ILIKE, with the escape of `… ESCAPE c` (like_escape) or the default backslash. */
  protected like(l0: Expr, rnode: AstNode, mode: Mode, op: string, location: number): Expr {
    let escape = '\\';
    let pnode = rnode;
    if (kindOf(rnode) === 'FuncCall' && (fieldsOf(rnode).funcname as AstNode[]).map(str).includes('like_escape')) {
      const [p, esc] = fieldsOf(rnode).args as AstNode[];
      const e = this.expr(esc!, mode);
      if (e.kind !== 'const') throw notSupported('a non-constant ESCAPE', location);
      if (e.value === null) return E.const(null, BOOL);
      escape = String(e.value);
      checkEscape(escape);
      pnode = p!;
    }
    const p0 = this.expr(pnode, mode);
    const fail = () => undefinedOperator(`${pgDisplayName(l0.type)} ${op} ${unknownLiterals.has(p0) ? 'unknown' : pgDisplayName(p0.type)}`, location);
    const l = this.text(l0, fail);
    const p = this.text(p0, fail);
    return E.like(l, p, escape, op.startsWith('!'), op.includes('*'));
  }

  /** `a || b`: text concatenation; one side may be a non-string type, printed by its output function. */
  protected textcat(l: Expr, r: Expr, location: number): Expr {
    const fail = () => undefinedOperator(`${pgDisplayName(l.type)} || ${pgDisplayName(r.type)}`, location);
    const ls = unknownLiterals.has(l) || categoryOf(l.type) === 'string';
    const rs = unknownLiterals.has(r) || categoryOf(r.type) === 'string';
    if (!ls && !rs) throw fail();
    // textanycat is `$1 || $2::text`: the other side takes its cast to text (booltext's `true`).
    const side = (e: Expr, s: boolean) => (s ? this.text(e, fail) : categoryOf(e.type) === 'other' ? e : this.cast(e, T.text, location));
    const a = side(l, ls);
    const b = side(r, rs);
    if (categoryOf(a.type) === 'other' || categoryOf(b.type) === 'other') throw notSupported(`|| with ${pgDisplayName(categoryOf(a.type) === 'other' ? a.type : b.type)}`, location);
    return E.func('textcat', [a, b], T.text);
  }
}
