/**
 * Expressions from the parse tree: every node kind the binder supports, function calls, CASE,
 * arrays, and subqueries, which become InitPlans (../ir.ts) run at execution, never here. The
 * third layer of the Binder (./select.ts).
 */
import { type PgType, type Value, PaxdError, SQLSTATE, arrayOf, formatArrayText, parseArrayText, pgDisplayName } from '../../types/index.js';
import { type AstFields, type AstNode, type ConstList, constNodes, constsOf, fieldsOf, kindOf, locationOf, str } from '../parse.js';
import { type Expr, BOOL, E, exprKey } from '../expr.js';
import { T, categoryOf, engineType, isInteger } from '../types.js';
import { aggregateNotAllowed, datatypeMismatch, notSupported, positionOf, SqlError, undefinedFunction } from '../errors.js';
import { fromText, toText } from '../exec/kernels.js';
import { type AggCall, type AggName, type OrderItem, COLLECTING_AGGREGATES, queryFields } from '../ir.js';
import { bindFunction, bindIntervalCast, bindMinMax, bindSqlValueFunction, isIntervalType, unknownFunction } from './functions.js';
import { bindJsonAggregate, bindJsonOperator } from './json.js';
import { isJsonAggregate } from './json-aggregates.js';
import { AGGREGATES, UNSUPPORTED_AGGREGATES, AGGREGATE_ALIAS, ARITH, CMP, aggregateType, regclassTables, regclassExprs, typeOf, isRegclass } from './catalog.js';
import { bindCollate, regclassOid, systemRegclass } from '../catalog/index.js';
import { unknownLiterals, paramRef, isUnknownText, resolveUnknown, literal, inferParam } from './literals.js';
import { outputName, hasAggregate, safeBind } from './ast.js';
import type { Mode } from './scope.js';
import { OperatorBinder } from './operators.js';
import { constInList, hashedInList, inListLiteralType } from './in-list.js';
import { constArray } from './const-list.js';

export abstract class ExprBinder extends OperatorBinder {
  protected abstract aggOrderItem(o: AstFields): OrderItem;
  protected abstract collectingAggregate(name: 'string_agg' | 'array_agg', args: AstNode[], order: OrderItem[] | undefined, n: AstFields): AggCall;
  protected abstract orderedSetAggregate(name: AggName, args: AstNode[], order: OrderItem[], n: AstFields): AggCall;

  /**
   * A subquery in an expression, uncorrelated: an InitPlan, run at execution (./ir.ts
   * `InitPlan`). A scalar subquery must have one column (its row count is checked when it
   * runs: 21000), EXISTS is a boolean, `x IN (…)` / `x op ANY|ALL (…)` compares `x` with each
   * of its values, so the comparison is typed here, once, against a placeholder row value.
   */
  protected subLink(n: AstFields, mode: Mode): Expr {
    // A SubLink bound again (a target matched against its GROUP BY key, ORDER BY 1) is the same
    // InitPlan, so the two bindings are one expression and the subquery runs once. ANY/ALL
    // compare a value of the outer row, whose slot depends on the mode: reused in scalar mode
    // only. In GROUP BY matching, equal SubLinks written twice (`SELECT x IN (…) … GROUP BY
    // x IN (…)`) are one as well, as PostgreSQL matches equal expressions there: keyed by the
    // node without its locations. Elsewhere two written subqueries stay two InitPlans (each
    // `(SELECT random())` is its own value).
    const kind = n.subLinkType as string;
    if ((kind === 'ANY_SUBLINK' || kind === 'ALL_SUBLINK') && mode.kind !== 'scalar') return this.newInitPlan(n, kind, mode);
    const byText = mode.kind === 'scalar' && mode.clause === 'GROUP BY' ? JSON.stringify(n, (k, v) => (k === 'location' ? undefined : v)) : null;
    const known = byText !== null ? this.linksByText.get(byText) : this.linksByNode.get(n);
    if (known !== undefined) return known;
    const e = this.newInitPlan(n, kind, mode);
    if (byText !== null) this.linksByText.set(byText, e);
    this.linksByNode.set(n, e);
    return e;
  }

  /** The SubLinks bound so far, by node and (GROUP BY matching) by their text without locations. */
  private readonly linksByNode = new Map<AstFields, Expr>();
  private readonly linksByText = new Map<string, Expr>();

  private newInitPlan(n: AstFields, kind: string, mode: Mode): Expr {
    const query = this.subQueries?.get(n);
    if (query === undefined) throw notSupported('subqueries in this clause', n.location);
    const fields = queryFields(query);
    const id = this.initPlans.length;
    if (kind === 'EXISTS_SUBLINK') {
      this.initPlans.push(Object.freeze({ kind: 'exists', id, query }));
      return E.subquery(id, BOOL);
    }
    if (kind === 'EXPR_SUBLINK') {
      if (fields.length !== 1) throw new SqlError('invalid_input', SQLSTATE.syntax_error, 'subquery must return only one column', positionOf(n.location));
      this.initPlans.push(Object.freeze({ kind: 'scalar', id, query }));
      return E.subquery(id, fields[0]!.type);
    }
    if (kind !== 'ANY_SUBLINK' && kind !== 'ALL_SUBLINK') throw notSupported(`${kind.replace(/_SUBLINK$/, '')} subqueries`, n.location);
    if (kindOf(n.testexpr as AstNode) === 'RowExpr') throw notSupported('row comparisons with subqueries', n.location);
    if (fields.length !== 1) throw new SqlError('invalid_input', SQLSTATE.syntax_error, fields.length > 1 ? 'subquery has too many columns' : 'subquery has too few columns', positionOf(n.location));
    const opName = n.operName === undefined ? '=' : (n.operName as AstNode[]).map(str).join('.');
    const op = CMP[opName];
    if (op === undefined) throw notSupported(`operator ${opName} with a subquery`, n.location);
    const x = this.expr(n.testexpr as AstNode, mode);
    // The comparison exists even when the subquery returns no row (42883 for incomparable types).
    const test = this.compare(op, x, E.element(fields[0]!.type), n.location);
    this.initPlans.push(Object.freeze({ kind: kind === 'ANY_SUBLINK' ? 'any' : 'all', id, query, op, test, conjunct: this.conjunctLinks.has(n) }));
    return E.subquery(id, BOOL);
  }

  /**
   * The elements of `x op ANY/ALL (array)`: an ARRAY[…] constructor, or an array literal
   * (`'{1,2}'::integer[]`, or untyped, taking the element type of `x`), each element a
   * constant of the element type. Null for a NULL array.
   */
  protected arrayElements(node: AstNode, mode: Mode, x: Expr): Expr[] | null {
    const n = fieldsOf(node);
    switch (kindOf(node)) {
      case 'A_ArrayExpr': {
        return constNodes(n.elements ?? []).map((a) => this.expr(a, mode));
      }
      case 'TypeCast': {
        if (n.typeName.arrayBounds === undefined) break;
        const elem = typeOf({ ...n.typeName, arrayBounds: undefined });
        const arg = this.expr(n.arg, mode);
        if (arg.kind !== 'const') break;
        if (arg.value === null) return null;
        if (!unknownLiterals.has(arg) && categoryOf(arg.type) !== 'string') break;
        return parseArrayText(String(arg.value)).map((t) => (t === null ? E.const(null, engineType(elem)) : E.const(fromText(elem, t), engineType(elem))));
      }
      case 'A_Const':
      case 'ParamRef': {
        // An untyped literal or parameter: array text of the element type of `x`.
        const arg = this.expr(node, mode);
        if (arg.kind !== 'const' || (!unknownLiterals.has(arg) && arg.type.id !== 'text' && arg.type.id !== 'array')) break;
        if (arg.value === null) return null;
        // A parameter bound as an array (psycopg's lists) is read with its own element type.
        const elem = arg.type.id === 'array' ? arg.type.element! : unknownLiterals.has(x) ? T.text : x.type;
        return parseArrayText(String(arg.value)).map((t) => (t === null ? E.const(null, engineType(elem)) : E.const(fromText(elem, t), engineType(elem))));
      }
      default:
        break;
    }
    throw notSupported('ANY/ALL over anything but an array constructor or literal', locationOf(node));
  }

  /**
   * `'{1,2}'::int4[]`: an array constant, its text read by the element type's input function
   * (the value is array_out's text, src/types/array.ts). Casts of computed values are 0A000.
   */
  protected arrayCast(n: AstFields, mode: Mode): Expr {
    let elem: PgType;
    try {
      elem = typeOf({ ...n.typeName, arrayBounds: undefined });
    } catch (e) {
      if (e instanceof PaxdError && e.code === SQLSTATE.undefined_object) throw new SqlError('not_found', e.code, e.message.replace(/^type "(.*)" does not exist$/, 'type "$1[]" does not exist'), e.position);
      throw e;
    }
    const type = arrayOf(engineType(elem));
    const arg = this.expr(n.arg, mode);
    // `$1::int4[]` types its parameter int4[], as PostgreSQL's ParameterDescription says (postgres.js serializes arrays by it).
    inferParam(arg, type);
    if (arg.type.id === 'array' && arg.type.element!.id === elem.id) return arg;
    if (arg.kind === 'const' && (unknownLiterals.has(arg) || categoryOf(arg.type) === 'string')) {
      if (arg.value === null) return E.const(null, type);
      return E.const(fromText(arrayOf(elem), String(arg.value)), type);
    }
    throw notSupported(`casts of ${unknownLiterals.has(arg) ? 'unknown' : pgDisplayName(arg.type)} values to ${pgDisplayName(type)}`, n.location);
  }

  /** `ARRAY[a, b, …]` of constants: one array constant of the elements' common type. */
  protected arrayConstructor(n: AstFields, mode: Mode): Expr {
    const consts = constsOf(n.elements);
    const folded = consts === null ? null : constArray((e, w, l) => this.unify(e, w, l), (e) => this.cast(e, T.text), consts, n.location);
    if (folded !== null) return folded;
    const items = constNodes(n.elements ?? []).map((a) => this.expr(a, mode));
    if (items.length === 0) throw new SqlError('invalid_input', SQLSTATE.indeterminate_datatype, 'cannot determine type of empty array', positionOf(n.location));
    const unified = this.unify(items.map((e) => (items.every((x) => unknownLiterals.has(x)) ? this.cast(e, T.text) : e)), 'ARRAY', n.location);
    const type = unified[0]!.type;
    if (type.id === 'array') throw notSupported('multidimensional arrays', n.location);
    if (unified.some((e) => e.kind !== 'const')) return E.func('ARRAY[](variadic any)', unified, arrayOf(type));
    const texts = unified.map((e) => ((e as { value: Value }).value === null ? null : toText(type, (e as { value: Value }).value)));
    return E.const(formatArrayText(texts), arrayOf(type));
  }

  /** `(ARRAY[a, b, …])[i]`: CASE i WHEN 1 THEN a WHEN 2 THEN b … END (NULL out of range, as PostgreSQL). */
  protected subscript(n: AstFields, mode: Mode): Expr {
    const ind = n.indirection as AstNode[];
    if (ind.length !== 1 || kindOf(ind[0]!) !== 'A_Indices' || fieldsOf(ind[0]!).is_slice === true) throw notSupported('array slices and field selection', locationOf(n.arg));
    const arg = n.arg as AstNode;
    let items: Expr[];
    if (kindOf(arg) === 'A_ArrayExpr') items = constNodes(fieldsOf(arg).elements ?? []).map((a) => this.expr(a, mode));
    else if (kindOf(arg) === 'TypeCast' && fieldsOf(arg).typeName.arrayBounds !== undefined) items = this.arrayElements(arg, mode, E.const(null, T.text)) ?? [];
    else return this.arraySubscript(this.expr(arg, mode), this.expr(fieldsOf(ind[0]!).uidx as AstNode, mode), n);
    if (items.length === 0) throw notSupported('subscripts of an empty array');
    const unified = this.unify(items, 'ARRAY', locationOf(arg));
    const idx0 = this.expr(fieldsOf(ind[0]!).uidx as AstNode, mode);
    const idx = unknownLiterals.has(idx0) ? this.cast(idx0, T.int4) : idx0;
    if (!isInteger(idx.type)) throw datatypeMismatch(`array subscript must have type integer`, locationOf(fieldsOf(ind[0]!).uidx as AstNode));
    const type = unified[0]!.type;
    if (idx.kind === 'const') {
      const k = idx.value === null ? -1 : Number(idx.value);
      return k >= 1 && k <= unified.length ? unified[k - 1]! : E.const(null, type);
    }
    const whens = unified.map((result, i) => ({ cond: this.compare('=', idx, E.const(i + 1, T.int4), -1), result }));
    return E.case(whens, E.const(null, type), type);
  }

  /** `a[i]` of an array expression (../functions/arrays.ts `[]`): the element, NULL out of range. */
  protected arraySubscript(a: Expr, idx0: Expr, n: AstFields): Expr {
    if (a.type.id !== 'array') throw new SqlError('invalid_input', SQLSTATE.datatype_mismatch, `cannot subscript type ${pgDisplayName(a.type)} because it does not support subscripting`, positionOf(locationOf(n.arg)));
    const idx = unknownLiterals.has(idx0) ? this.cast(idx0, T.int4) : idx0;
    if (!isInteger(idx.type)) throw datatypeMismatch('array subscript must have type integer', locationOf(n.arg));
    return E.func('[](array,int4)', [a, idx.type.id === 'int4' ? idx : this.cast(idx, T.int4)], a.type.element!);
  }

  /** `||` with an array: array_cat, or array_append / array_prepend of an element (PostgreSQL's operator choice). */
  protected arrayConcat(l: Expr, r: Expr, location: number): Expr {
    const arr = (e: Expr) => e.type.id === 'array' || unknownLiterals.has(e);
    const name = arr(l) && arr(r) ? 'array_cat' : l.type.id === 'array' ? 'array_append' : 'array_prepend';
    return bindFunction(name, [l, r], location, this.fn)!;
  }

  protected override expr(node: AstNode, mode: Mode): Expr {
    const kind = kindOf(node);
    const n = fieldsOf(node);
    // In a grouped query an expression equal to a GROUP BY key is that key.
    if (mode.kind === 'grouped' && mode.keys.length > 0 && kind !== 'ColumnRef' && kind !== 'A_Const' && !hasAggregate(node)) {
      const probe = safeBind(() => this.expr(node, { kind: 'scalar', clause: 'GROUP BY' }));
      if (probe !== null) {
        const k = mode.keyNodes.indexOf(exprKey(probe));
        if (k >= 0) return E.column(k, probe.type, outputName(node));
      }
    }
    switch (kind) {
      case 'ColumnRef':
        return this.columnRef(n, mode);
      case 'A_Const':
        return literal(n);
      case 'TypeCast': {
        const sys = isRegclass(n.typeName) ? systemRegclass(n) : null;
        if (sys !== null) return sys;
        const rc = regclassTables.get(n);
        if (rc !== undefined) {
          const e = regclassOid(rc.name, rc.snapshot.incarnation ?? 1);
          regclassExprs.set(e, rc);
          return e;
        }
        if (n.typeName.arrayBounds !== undefined) return this.arrayCast(n, mode);
        if (isIntervalType(n.typeName)) return bindIntervalCast(this.expr(n.arg, mode), n.typeName, n.location, this.fn);
        const type = typeOf(n.typeName);
        return this.cast(this.expr(n.arg, mode), type, n.location, true);
      }
      case 'A_Expr':
        return this.aExpr(n, mode);
      case 'BoolExpr': {
        const args = (n.args as AstNode[]).map((a) => this.boolArg(a, mode, n.boolop === 'AND_EXPR' ? 'AND' : n.boolop === 'OR_EXPR' ? 'OR' : 'NOT'));
        if (n.boolop === 'AND_EXPR') return E.and(args);
        if (n.boolop === 'OR_EXPR') return E.or(args);
        return E.not(args[0]!);
      }
      case 'NullTest': {
        const whole = this.wholeRowTest(n, mode);
        if (whole !== null) return whole;
        if (n.argisrow === true) throw notSupported('IS NULL on a row');
        return E.isNull(resolveUnknown(this.expr(n.arg, mode)), n.nulltesttype === 'IS_NOT_NULL');
      }
      case 'FuncCall':
        return this.funcCall(n, mode);
      case 'ParamRef':
        return paramRef(n);
      case 'SubLink':
        return this.subLink(n, mode);
      case 'CaseExpr':
        return this.caseExpr(n, mode);
      case 'CoalesceExpr': {
        const args = this.unify((n.args as AstNode[]).map((a) => this.expr(a, mode)), 'COALESCE', n.location);
        return E.coalesce(args, args[0]!.type);
      }
      case 'BooleanTest':
        throw notSupported('IS [NOT] TRUE/FALSE/UNKNOWN', n.location);
      case 'SQLValueFunction':
        return bindSqlValueFunction(n);
      case 'MinMaxExpr':
        return bindMinMax(n, (n.args as AstNode[]).map((a) => this.expr(a, mode)), this.fn);
      case 'A_Indirection':
        return this.subscript(n, mode);
      case 'RowExpr': {
        // ROW(a, b, …) as record_out's text; the engine has no record type (whole-row references).
        const args = ((n.args ?? []) as AstNode[]).map((a) => {
          const e = this.expr(a, mode);
          return unknownLiterals.has(e) ? this.cast(e, T.text) : e;
        });
        return E.func('record_out', args, T.text);
      }
      case 'A_ArrayExpr':
        return this.arrayConstructor(n, mode);
      case 'CollateClause':
        return bindCollate(n, this.expr(n.arg, mode));
      default:
        throw notSupported(`${kind} expressions`, n.location);
    }
  }

  protected boolArg(a: AstNode, mode: Mode, op: string): Expr {
    const e = this.coerce(this.expr(a, mode), BOOL, a);
    if (e.type.id !== 'bool') throw datatypeMismatch(`argument of ${op} must be type boolean, not type ${pgDisplayName(e.type)}`, locationOf(a));
    return e;
  }

  /** `x [NOT] IN (constants…)` from the parser's column form, as one hashed test (./in-list.ts), or null. */
  private constInList(x: Expr, c: ConstList, negated: boolean, location: number): Expr | null {
    return constInList({ cast: (e, t, l) => this.cast(e, t, l), compare: (op, l, r, loc) => this.compare(op, l, r, loc) }, x, c, negated, location);
  }

  protected aExpr(n: AstFields, mode: Mode): Expr {
    // OPERATOR(pg_catalog.~) is the built-in ~ (search_path begins with pg_catalog).
    const op = n.name === undefined ? '' : (n.name as AstNode[]).map(str).join('.').replace(/^pg_catalog\./, '');
    switch (n.kind as string) {
      case 'AEXPR_OP': {
        if (n.lexpr === undefined) {
          const arg = this.expr(n.rexpr, mode);
          if (op === '-') return this.negate(arg, n.location);
          if (op === '+') return arg;
          throw notSupported(`prefix operator ${op}`, n.location);
        }
        const l = this.expr(n.lexpr, mode);
        const r = this.expr(n.rexpr, mode);
        const json = bindJsonOperator(op, l, r, n.location, this.fn);
        if (json !== null) return json;
        // Arrays have comparisons only; PostgreSQL's array operators (||, @>, &&, …) paxd lacks.
        if (op === '||' && (l.type.id === 'array' || r.type.id === 'array')) return this.arrayConcat(l, r, n.location);
        if (CMP[op] === undefined && (l.type.id === 'array' || r.type.id === 'array')) throw notSupported(`operator ${op} on arrays`, n.location);
        if (ARITH[op] !== undefined) return this.arith(ARITH[op], l, r, n.location);
        if (CMP[op] !== undefined) return this.compare(CMP[op], l, r, n.location);
        if (op === '||') return this.textcat(l, r, n.location);
        if (op === '~~' || op === '!~~' || op === '~~*' || op === '!~~*') return this.like(l, n.rexpr, mode, op, n.location);
        if (op === '~' || op === '!~' || op === '~*' || op === '!~*') return this.regex(l, r, op, n.location);
        throw notSupported(`operator ${op}`, n.location);
      }
      case 'AEXPR_IN': {
        const l = this.expr(n.lexpr, mode);
        const consts = constsOf(n.rexpr);
        const hashed = consts === null ? null : this.constInList(l, consts, op !== '=', n.location);
        if (hashed !== null) return hashed;
        const list: AstNode[] = consts !== null ? constNodes(n.rexpr) : Array.isArray(n.rexpr) ? n.rexpr : kindOf(n.rexpr) === 'List' ? fieldsOf(n.rexpr).items : [];
        if (list.length === 0) throw notSupported('IN (subquery)', n.location);
        const items = list.map((x) => this.expr(x, mode));
        const literalType = inListLiteralType(l, items);
        const parts = items.map((x) => this.compare(op === '=' ? '=' : '<>', l, literalType !== null && unknownLiterals.has(x) ? this.cast(x, literalType, n.location) : x, n.location));
        return hashedInList(parts, op !== '=') ?? (op === '=' ? E.or(parts) : E.and(parts));
      }
      case 'AEXPR_BETWEEN':
      case 'AEXPR_NOT_BETWEEN': {
        const x = this.expr(n.lexpr, mode);
        const [lo, hi] = (fieldsOf(n.rexpr).items as AstNode[]).map((b) => this.expr(b, mode)) as [Expr, Expr];
        if (n.kind === 'AEXPR_BETWEEN') return E.and([this.compare('>=', x, lo, n.location), this.compare('<=', x, hi, n.location)]);
        return E.or([this.compare('<', x, lo, n.location), this.compare('>', x, hi, n.location)]);
      }
      case 'AEXPR_LIKE':
      case 'AEXPR_ILIKE':
        return this.like(this.expr(n.lexpr, mode), n.rexpr, mode, op, n.location);
      case 'AEXPR_NULLIF': {
        // NULLIF(a, b) is CASE WHEN a = b THEN NULL ELSE a END, typed as a.
        const a = resolveUnknown(this.expr(n.lexpr, mode));
        const b = this.expr(n.rexpr, mode);
        const a0 = isUnknownText(a) ? this.cast(a, T.text) : a;
        return E.case([{ cond: this.compare('=', a0, b, n.location), result: E.const(null, a0.type) }], a0, a0.type);
      }
      case 'AEXPR_DISTINCT':
      case 'AEXPR_NOT_DISTINCT': {
        // a IS NOT DISTINCT FROM b: CASE WHEN a IS NULL THEN b IS NULL WHEN b IS NULL THEN false ELSE a = b END (never NULL).
        const l = this.expr(n.lexpr, mode);
        const r = this.expr(n.rexpr, mode);
        const eq = this.compare('=', l, r, n.location);
        const same = E.case(
          [
            { cond: E.isNull(l, false), result: E.isNull(r, false) },
            { cond: E.isNull(r, false), result: E.const(false, BOOL) },
          ],
          eq,
          BOOL,
        );
        return n.kind === 'AEXPR_NOT_DISTINCT' ? same : E.not(same);
      }
      case 'AEXPR_OP_ANY':
      case 'AEXPR_OP_ALL': {
        // x op ANY (array): the OR of the comparisons with the elements (AND for ALL): the
        // same three-valued answer as PostgreSQL's scalar-array operator; an IN list of constants
        // then goes into the scan's zone maps (./plan.ts).
        const cmpOp = CMP[op];
        if (cmpOp === undefined) throw notSupported(`operator ${op} with ANY/ALL`, n.location);
        const l = this.expr(n.lexpr, mode);
        const items = this.arrayElements(n.rexpr, mode, l);
        if (items === null) return E.const(null, BOOL);
        const any = n.kind === 'AEXPR_OP_ANY';
        if (items.length === 0) return E.const(!any, BOOL);
        const parts = items.map((x) => this.compare(cmpOp, l, x, n.location));
        return any ? E.or(parts) : E.and(parts);
      }
      case 'AEXPR_SIMILAR':
        throw notSupported('SIMILAR TO', n.location);
      default:
        throw notSupported(`${String(n.kind)} expressions`, n.location);
    }
  }

  protected funcCall(n: AstFields, mode: Mode): Expr {
    const names = (n.funcname as AstNode[]).map(str);
    const name0 = names[names.length - 1]!.toLowerCase();
    // Built-ins live in pg_catalog (postgres_fdw qualifies some: pg_catalog.pg_relation_size).
    if (names.length > 2) throw notSupported('function names qualified with a database', n.location);
    if (names.length === 2 && names[0] !== 'pg_catalog') {
      if (names[0] === 'public') throw undefinedFunction(`${names.join('.')}(…)`, n.location);
      throw new SqlError('not_found', SQLSTATE.invalid_schema_name, `schema "${names[0]}" does not exist`, positionOf(n.location));
    }
    if (isJsonAggregate(name0) && n.over === undefined) return bindJsonAggregate(name0, n, (call) => this.funcCall(call, mode), this.fn);
    if (!AGGREGATES.has(name0) || n.over !== undefined) return this.scalarFunc(name0, n, mode);
    const name = AGGREGATE_ALIAS[name0] ?? (name0 as AggName);
    if (mode.kind === 'scalar') throw aggregateNotAllowed(mode.clause, n.location);
    if (n.over !== undefined) throw notSupported('window functions', n.location);
    const args = (n.args ?? []) as AstNode[];
    const ordered = name === 'percentile_cont' || name === 'percentile_disc';
    // Without WITHIN GROUP no percentile signature matches the direct arguments alone.
    if (ordered && n.agg_within_group !== true) {
      const types = args.map((a) => {
        const e = this.expr(a, { kind: 'scalar', clause: 'aggregate arguments' });
        return unknownLiterals.has(e) ? 'unknown' : pgDisplayName(e.type);
      });
      throw undefinedFunction(`${name0}(${types.join(', ')})`, n.location);
    }
    if (ordered !== (n.agg_within_group === true))
      throw new SqlError(
        'invalid_input',
        SQLSTATE.wrong_object_type,
        ordered ? `WITHIN GROUP is required for ordered-set aggregate ${name0}` : `${name0} is not an ordered-set aggregate, so it cannot have WITHIN GROUP`,
        positionOf(n.location),
      );
    const order = n.agg_order === undefined ? undefined : ((n.agg_order as AstNode[]).map((o) => this.aggOrderItem(fieldsOf(o))) as OrderItem[]);
    let call: AggCall;
    if (ordered) call = this.orderedSetAggregate(name, args, order!, n);
    else if (name === 'string_agg' || name === 'array_agg') call = this.collectingAggregate(name, args, order, n);
    else if (n.agg_star === true) {
      if (name !== 'count') throw new SqlError('invalid_input', SQLSTATE.syntax_error, `${name}(*) specified, but ${name} is not an aggregate function`, positionOf(n.location));
      call = { fn: 'count', arg: null, type: T.int8, distinct: false };
    } else {
      if (args.length !== 1) throw undefinedFunction(`${name}() with ${args.length} arguments`, n.location);
      if (hasAggregate(args[0]!)) throw new SqlError('invalid_input', SQLSTATE.grouping_error, 'aggregate function calls cannot be nested', positionOf(n.location));
      const bound = this.expr(args[0]!, { kind: 'scalar', clause: 'aggregate arguments' });
      const arg = isUnknownText(bound) ? this.cast(bound, T.text) : bound;
      call = { fn: name as AggName, arg, type: aggregateType(name as AggName, arg.type, n.location), distinct: n.agg_distinct === true };
    }
    if (n.agg_filter !== undefined) {
      // agg(x) FILTER (WHERE c) is agg(CASE WHEN c THEN x END): aggregates skip NULLs, and
      // count(*) counts the rows where c is true.
      const cond = this.condition(n.agg_filter, { kind: 'scalar', clause: 'FILTER' }, 'FILTER');
      const x = call.arg ?? E.const(1, T.int4);
      // array_agg keeps NULLs, so collecting aggregates drop the filtered rows themselves.
      call = COLLECTING_AGGREGATES.has(call.fn) ? { ...call, filter: cond } : { ...call, arg: E.case([{ cond, result: x }], E.const(null, x.type), x.type) };
    }
    const key = JSON.stringify([call.fn, call.distinct, call.arg === null ? null : exprKey(call.arg), call.order?.map((o) => [exprKey(o.expr), o.desc, o.nullsFirst]) ?? null, call.filter === undefined ? null : exprKey(call.filter), exprKey(E.const(call.param ?? null, T.text))]);
    let j = mode.aggKeys.indexOf(key);
    if (j < 0) {
      mode.aggs.push(call);
      mode.aggKeys.push(key);
      j = mode.aggs.length - 1;
    }
    return E.column(mode.keys.length + j, call.type, name0);
  }

  protected caseExpr(n: AstFields, mode: Mode): Expr {
    const subject = n.arg === undefined ? null : this.expr(n.arg, mode);
    const whens = (n.args as AstNode[]).map((w) => {
      const cw = fieldsOf(w);
      let cond: Expr;
      if (subject !== null) cond = this.compare('=', subject, this.expr(cw.expr, mode), cw.location);
      else {
        cond = this.coerce(this.expr(cw.expr, mode), BOOL, cw.expr);
        if (cond.type.id !== 'bool') throw datatypeMismatch(`argument of CASE/WHEN must be type boolean, not type ${pgDisplayName(cond.type)}`, locationOf(cw.expr));
      }
      return { cond, result: this.expr(cw.result, mode) };
    });
    const otherwise = n.defresult === undefined ? null : this.expr(n.defresult, mode);
    // The ELSE result comes first in the common type's choice, as transformCaseExpr lists it.
    const results = this.unify([...(otherwise === null ? [] : [otherwise]), ...whens.map((w) => w.result)], 'CASE', n.location);
    const type = results[0]!.type;
    const first = otherwise === null ? 0 : 1;
    return E.case(
      whens.map((w, i) => ({ cond: w.cond, result: results[first + i]! })),
      otherwise === null ? E.const(null, type) : results[0]!,
      type,
    );
  }

  /** Scalar functions over text (PostgreSQL 15 docs 9.4); others are 0A000. */
  protected scalarFunc(name: string, n: AstFields, mode: Mode): Expr {
    if (n.over !== undefined) throw notSupported('window functions', n.location);
    const aggregateSyntax = n.agg_star === true || n.agg_distinct === true || n.agg_order !== undefined || n.agg_filter !== undefined || n.agg_within_group === true;
    if (aggregateSyntax && UNSUPPORTED_AGGREGATES.has(name)) throw notSupported(`aggregate ${name}()`, n.location);
    if (aggregateSyntax)
      throw new SqlError('invalid_input', SQLSTATE.syntax_error, `${name} is not an aggregate function`, positionOf(n.location));
    if (n.func_variadic === true) throw notSupported('VARIADIC arguments', n.location);
    const args = ((n.args ?? []) as AstNode[]).map((a) => this.expr(a, mode));
    const sig = () => undefinedFunction(`${name}(${args.map((a) => (unknownLiterals.has(a) ? 'unknown' : pgDisplayName(a.type))).join(', ')})`, n.location);
    const arity = (lo: number, hi: number) => {
      if (args.length < lo || args.length > hi) throw sig();
    };
    switch (name) {
      case 'pg_relation_size': {
        // The bytes of the table's data files in the pinned snapshot (postgres_fdw's ANALYZE
        // divides by 8192 for relpages, docs postgres_fdw.md §i).
        arity(1, 2);
        const table = regclassExprs.get(args[0]!);
        if (table === undefined) throw notSupported('pg_relation_size of anything but a regclass literal', n.location);
        if (args.length === 2) {
          const fork = args[1]!;
          if (fork.kind !== 'const' || (fork.value !== 'main' && fork.value !== null)) return E.const(0n, T.int8);
        }
        let bytes = 0;
        for (const f of table.snapshot.files) bytes += f.size;
        return E.const(BigInt(bytes), T.int8);
      }
      case 'length':
      case 'char_length':
      case 'character_length':
        arity(1, 1);
        if (args[0]!.type.id === 'bpchar' && !unknownLiterals.has(args[0]!)) return E.func('length', [args[0]!], T.int4);
        return E.func('length', [this.text(args[0]!, sig)], T.int4);
      case 'lower':
      case 'upper':
        arity(1, 1);
        return E.func(name, [this.text(args[0]!, sig)], T.text);
      case 'substring':
      case 'substr': {
        arity(2, 3);
        if (unknownLiterals.has(args[1]!) || categoryOf(args[1]!.type) === 'string') throw notSupported('substring with a regular expression', n.location);
        return E.func('substring', [this.text(args[0]!, sig), ...args.slice(1).map((a) => this.int4(a, sig))], T.text);
      }
      case 'position':
      case 'strpos':
        arity(2, 2);
        return E.func('position', [this.text(args[0]!, sig), this.text(args[1]!, sig)], T.int4);
      case 'btrim':
      case 'ltrim':
      case 'rtrim':
        arity(1, 2);
        return E.func(name, args.map((a) => this.text(a, sig)), T.text);
      case 'repeat':
        arity(2, 2);
        return E.func('repeat', [this.text(args[0]!, sig), this.int4(args[1]!, sig)], T.text);
      case 'lpad':
      case 'rpad':
        arity(2, 3);
        return E.func(name, [this.text(args[0]!, sig), this.int4(args[1]!, sig), ...args.slice(2).map((a) => this.text(a, sig))], T.text);
      case 'concat':
        if (args.length === 0) throw sig();
        for (const a of args) if (categoryOf(a.type) === 'other' && !unknownLiterals.has(a)) throw notSupported(`concat of ${pgDisplayName(a.type)}`, n.location);
        return E.func('concat', args.map((a) => (unknownLiterals.has(a) ? this.cast(a, T.text) : a)), T.text);
      default: {
        const f = bindFunction(name, args, n.location, this.fn);
        if (f !== null) return f;
        throw unknownFunction(name, args, n.location, this.fn);
      }
    }
  }
}
