/**
 * OR factoring, a predicate pushdown step of the optimize stage (issue #19; TPC-H Q19):
 *
 *   (p_partkey = l_partkey AND p_brand = 'Brand#12' AND l_quantity <= 11)
 *   OR (p_partkey = l_partkey AND p_brand = 'Brand#23' AND l_quantity <= 20)
 *
 * becomes the conjunct common to every branch, `p_partkey = l_partkey` (a join key the planner
 * hashes on), AND the OR of what is left. Beyond that, for each input that every branch
 * restricts by conjuncts over that input alone, the OR of those conjuncts is implied
 * (`p_brand = 'Brand#12' OR p_brand = 'Brand#23'`) and is added as a filter that the planner
 * pushes into that input's scan; the OR itself stays, so the answer is unchanged (an implied
 * conjunct only removes rows the OR removes too). Three-valued logic holds: WHERE keeps the
 * rows where the whole condition is true, and `c AND (a OR b)` is true exactly when
 * `(c AND a) OR (c AND b)` is.
 */
import { type Expr, E, conjuncts, exprKey } from '../expr.js';

/** `conds` (the conjuncts of a WHERE or ON) with each OR factored as the header says. */
export function factorOrs(conds: readonly Expr[], inputsOf: (e: Expr) => ReadonlySet<number>): Expr[] {
  const out: Expr[] = [];
  for (const c of conds) {
    if (c.kind !== 'or') {
      out.push(c);
      continue;
    }
    const branches = c.args.map(conjuncts);
    const keys = branches.map((b) => new Set(b.map(exprKey)));
    const common = branches[0]!.filter((x) => keys.every((k) => k.has(exprKey(x))));
    const commonKeys = new Set(common.map(exprKey));
    const rest = branches.map((b) => b.filter((x) => !commonKeys.has(exprKey(x))));
    out.push(...common);
    // A branch left empty is true: the OR of the rest is then true and drops out.
    if (rest.some((b) => b.length === 0)) continue;
    out.push(E.or(rest.map((b) => E.and(b))));
    out.push(...impliedFilters(rest, inputsOf));
  }
  return out;
}

/** Per input restricted by every branch: the OR of each branch's conjuncts over that input alone. */
function impliedFilters(branches: readonly Expr[][], inputsOf: (e: Expr) => ReadonlySet<number>): Expr[] {
  const single = (e: Expr): number | null => {
    const s = inputsOf(e);
    return s.size === 1 ? [...s][0]! : null;
  };
  const all = new Set<number>();
  for (const b of branches) for (const x of b) if (single(x) !== null) all.add(single(x)!);
  const out: Expr[] = [];
  for (const input of all) {
    const parts = branches.map((b) => b.filter((x) => single(x) === input));
    if (parts.some((p) => p.length === 0)) continue;
    // Every branch is over this input alone: the OR itself is the filter, nothing to add.
    if (parts.every((p, i) => p.length === branches[i]!.length)) continue;
    out.push(E.or(parts.map((p) => E.and(p))));
  }
  return out;
}
