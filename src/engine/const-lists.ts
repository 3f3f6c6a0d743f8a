/**
 * The parser's side of ./parse.ts ConstList: long runs of plain constants in a libpg-query parse
 * tree replaced by their column form. Imports nothing, so that the parser thread
 * (./sql-parse-worker.ts) and ./parse.ts share it.
 */

/** Lists of more constants than this travel compactly (./parse.ts ConstList). */
export const CONST_LIST_MIN = 64;

/**
 * Replaces every long run of plain constants in a parse tree (libpg-query's JSON) by its
 * ConstList (./parse.ts), in place; returns the tree.
 */
export function compactConstLists<T>(tree: T, min: number): T {
  const todo: unknown[] = [tree];
  while (todo.length > 0) {
    const n = todo.pop() as Record<string, unknown>;
    if (Array.isArray(n)) {
      for (const x of n) if (typeof x === 'object' && x !== null) todo.push(x);
      continue;
    }
    if (n.A_Const !== undefined || n.PaxdConsts !== undefined) continue;
    // The lists that may hold constants only: IN's, ARRAY[…]'s, VALUES's rows.
    const inExpr = n.A_Expr as Record<string, unknown> | undefined;
    const arrayExpr = n.A_ArrayExpr as Record<string, unknown> | undefined;
    const select = n.SelectStmt as Record<string, unknown> | undefined;
    let holder: Record<string, unknown> | null = null;
    let field = '';
    let rows: unknown[] | null = null;
    if (inExpr !== undefined && inExpr.kind === 'AEXPR_IN' && typeof inExpr.rexpr === 'object' && inExpr.rexpr !== null && (inExpr.rexpr as { List?: unknown }).List !== undefined) {
      holder = inExpr;
      field = 'rexpr';
      rows = [(inExpr.rexpr as { List: unknown }).List];
    } else if (arrayExpr !== undefined && Array.isArray(arrayExpr.elements)) {
      holder = arrayExpr;
      field = 'elements';
      rows = [{ items: arrayExpr.elements }];
    } else if (select !== undefined && Array.isArray(select.valuesLists)) {
      holder = select;
      field = 'valuesLists';
      rows = [];
      for (const l of select.valuesLists as { List?: unknown }[]) rows.push(typeof l === 'object' && l !== null && l.List !== undefined ? l.List : null);
    }
    if (holder !== null && rows !== null) {
      // Every item an A_Const of a plain kind, every row as wide as the first.
      const width = rows[0] === null ? -1 : ((rows[0] as { items?: unknown[] }).items ?? []).length;
      let kinds = '';
      const values: (number | string | boolean | null)[] = [];
      const locations: number[] = [];
      let ok = width > 0 && rows.length * width > min;
      for (let r = 0; ok && r < rows.length; r++) {
        const items = rows[r] === null ? null : (rows[r] as { items?: unknown[] }).items;
        if (!Array.isArray(items) || items.length !== width) ok = false;
        for (let i = 0; ok && i < width; i++) {
          const c = (items as { A_Const?: Record<string, { [k: string]: unknown } | boolean | number> }[])[i]!.A_Const;
          if (c === undefined) {
            ok = false;
            break;
          }
          const keys = Object.keys(c);
          if (keys.length !== 2 || typeof c.location !== 'number') {
            ok = false;
            break;
          }
          const k = keys[0] === 'location' ? keys[1]! : keys[0]!;
          const v = c[k] as { [k: string]: unknown } | boolean;
          if (k === 'ival' && typeof v === 'object') values.push((v.ival as number | undefined) ?? 0);
          else if (k === 'fval' && typeof v === 'object' && typeof v.fval === 'string') values.push(v.fval);
          else if (k === 'sval' && typeof v === 'object') values.push((v.sval as string | undefined) ?? '');
          else if (k === 'boolval' && typeof v === 'object') values.push(v.boolval === true);
          else if (k === 'isnull' && v === true) values.push(null);
          else {
            ok = false;
            break;
          }
          kinds += k === 'isnull' ? 'n' : k[0];
          locations.push(c.location as number);
        }
      }
      if (ok) {
        holder[field] = { PaxdConsts: field === 'valuesLists' ? { kinds, values, locations, width } : { kinds, values, locations } };
        for (const k in holder) if (k !== field) todo.push(holder[k]);
        continue;
      }
    }
    for (const k in n) {
      const v = n[k];
      if (typeof v === 'object' && v !== null) todo.push(v);
    }
  }
  return tree;
}

/**
 * The worker's code (plain JavaScript, so that it runs the same from source and from the
 * bundle): parses each request and answers with the tree as JSON text, or with the error's
 * name, message and libpg-query's details.
 */
