/**
 * The `--where` of `paxd export`: a deliberately tiny syntax until the SQL engine exists —
 * comparisons of a bare column with a constant, joined by AND:
 *
 *   term   := column op value | column IS [NOT] NULL
 *   op     := = | <> | != | < | <= | > | >=
 *   value  := 'quoted text' ('' for a quote) | a bare token (digits, dates, words)
 *   where  := term [AND term]…          (AND and IS NULL in any case)
 *
 *   parseWhere("l_shipdate >= '1998-01-01' and l_discount < 0.05")
 *     // P.and(P.ge('l_shipdate', '1998-01-01'), P.lt('l_discount', '0.05'))
 *
 * Values stay text here and are parsed as PostgreSQL text input of the column's type when the
 * predicate is bound (src/scan/predicate.ts), so `ts >= 2024-01-01` and `amount = 12.50` work.
 * A syntax error is 42601 with the position (1-based character) where it was found.
 */
import { P, type CmpOp, type Predicate } from '../scan/index.js';
import { PaxdError, SQLSTATE } from '../types/index.js';

const TOKEN = /\s*(?:('(?:[^']|'')*')|(<=|>=|<>|!=|=|<|>)|([^\s'<>=!]+))/y;

interface Token {
  text: string;
  kind: 'string' | 'op' | 'word';
  at: number;
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  for (;;) {
    const start = TOKEN.lastIndex;
    if (/^\s*$/.test(src.slice(start))) return out;
    const m = TOKEN.exec(src);
    if (m === null) throw syntax(src, start, 'unexpected character');
    const at = m.index + m[0].length - (m[1] ?? m[2] ?? m[3])!.length;
    if (m[1] !== undefined) out.push({ text: m[1].slice(1, -1).replace(/''/g, "'"), kind: 'string', at });
    else if (m[2] !== undefined) out.push({ text: m[2], kind: 'op', at });
    else out.push({ text: m[3]!, kind: 'word', at });
  }
}

function syntax(src: string, at: number, what: string): PaxdError {
  return new PaxdError('usage', SQLSTATE.syntax_error, `--where: ${what} at character ${at + 1} of "${src}"`, { column: at + 1 });
}

/** Parses the `--where` text into a Predicate (see the grammar above). */
export function parseWhere(src: string): Predicate {
  const toks = tokenize(src);
  let i = 0;
  const peekWord = (w: string) => toks[i]?.kind === 'word' && toks[i]!.text.toUpperCase() === w;
  const terms: Predicate[] = [];
  for (;;) {
    const col = toks[i++];
    if (col === undefined || col.kind !== 'word') throw syntax(src, col?.at ?? src.length, 'expected a column name');
    if (peekWord('IS')) {
      i++;
      const not = peekWord('NOT');
      if (not) i++;
      if (!peekWord('NULL')) throw syntax(src, toks[i]?.at ?? src.length, 'expected NULL');
      i++;
      terms.push(not ? P.isNotNull(col.text) : P.isNull(col.text));
    } else {
      const op = toks[i++];
      if (op === undefined || op.kind !== 'op') throw syntax(src, op?.at ?? src.length, 'expected a comparison operator');
      const value = toks[i++];
      if (value === undefined || value.kind === 'op') throw syntax(src, value?.at ?? src.length, 'expected a value');
      const cmp: CmpOp = op.text === '!=' ? '<>' : (op.text as CmpOp);
      terms.push({ '=': P.eq, '<>': P.ne, '<': P.lt, '<=': P.le, '>': P.gt, '>=': P.ge }[cmp](col.text, value.text));
    }
    if (i === toks.length) break;
    if (!peekWord('AND')) throw syntax(src, toks[i]!.at, 'expected AND');
    i++;
  }
  return P.and(...terms);
}
