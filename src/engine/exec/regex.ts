/**
 * POSIX regular expression match, `~` and `~*` (PostgreSQL 15 docs 9.7.3), by translating
 * the common subset of PostgreSQL's ARE syntax to a JavaScript RegExp. What the two engines
 * read differently is 0A000 rather than a wrong answer:
 *
 *   translated  literals, `.` (matches newline, as ARE's default), `^ $` (string anchors),
 *               `* + ? {m} {m,} {m,n}` and their non-greedy forms, `| ( ) (?: ) (?= ) (?! )`,
 *               brackets `[a-z] [^…]`, `\d \D \w \W` (ASCII, as under the C collation),
 *               `\s \S` (ASCII white space), `\t \n \r \f \v`, `\` before punctuation
 *   0A000       `\b \B \m \M \y \Y \A \Z`, back references, `\x \u \U \e \c \0`, character
 *               classes `[[:alpha:]]`, `[[.x.]]`, `[[=x=]]`, `]` first in a bracket, `***`
 *               directors, embedded options `(?i)`, `{` that is not a bound; for `~*`,
 *               non-ASCII letters (C-collation case folding is ASCII only)
 *
 *   regexFor('^text 9[0-9]$', false).test('text 91')  // true
 */
import { SQLSTATE } from '../../types/index.js';
import { notSupported, SqlError } from '../errors.js';

const cache = new Map<string, RegExp>();

const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);
const SPACE_CLASS = ' \\t\\n\\r\\v\\f';

function unsupported(what: string): SqlError {
  return notSupported(`regular expression ${what}`);
}

/** The RegExp a PostgreSQL pattern means; 2201B when it is invalid, 0A000 as listed above. */
export function regexFor(pattern: string, ci: boolean): RegExp {
  const key = `${ci ? 'i' : 'c'}${pattern}`;
  let re = cache.get(key);
  if (re !== undefined) return re;
  const src = translate(pattern, ci);
  try {
    re = new RegExp(src, ci ? 'si' : 'su');
  } catch (e) {
    throw new SqlError('invalid_input', SQLSTATE.invalid_regular_expression, `invalid regular expression: ${(e as Error).message}`);
  }
  if (cache.size > 256) cache.clear();
  cache.set(key, re);
  return re;
}

function translate(p: string, ci: boolean): string {
  if (p.startsWith('***')) throw unsupported('directors (***)');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range
  if (ci && /[^\x00-\x7f]/.test(p)) throw notSupported('~* with non-ASCII characters in the pattern');
  let out = '';
  let i = 0;
  const n = p.length;
  while (i < n) {
    const c = p[i]!;
    if (c === '\\') {
      out += escape(p, i + 1, false);
      i += 2;
      continue;
    }
    if (c === '[') {
      const r = bracket(p, i);
      out += r.src;
      i = r.end;
      continue;
    }
    if (c === '(' && p[i + 1] === '?') {
      const k = p[i + 2];
      if (k !== ':' && k !== '=' && k !== '!') throw unsupported('(?…) constructs other than (?: (?= (?!');
      out += `(?${k}`;
      i += 3;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d{1,3})(,(\d{1,3})?)?\}/.exec(p.slice(i));
      if (m === null) throw unsupported('"{" that is not a bound');
      out += m[0];
      i += m[0].length;
      continue;
    }
    if (c === ']' || c === '}') {
      out += `\\${c}`;
      i++;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** The JavaScript for `\x` at p[at] (the character after the backslash). */
function escape(p: string, at: number, inBracket: boolean): string {
  if (at >= p.length) throw new SqlError('invalid_input', SQLSTATE.invalid_regular_expression, 'invalid regular expression: invalid escape \\ sequence');
  const c = p[at]!;
  switch (c) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
    case 't':
    case 'n':
    case 'r':
    case 'f':
    case 'v':
      return `\\${c}`;
    case 's':
      return inBracket ? SPACE_CLASS : `[${SPACE_CLASS}]`;
    case 'S':
      if (inBracket) throw unsupported('\\S inside a bracket expression');
      return `[^${SPACE_CLASS}]`;
    default:
      if (/[A-Za-z0-9]/.test(c)) throw unsupported(`escape \\${c}`);
      // `\` before anything else is that character (ARE); JavaScript's unicode mode accepts
      // only syntax characters escaped.
      if (SYNTAX.has(c) || (inBracket && c === '-')) return `\\${c}`;
      return c;
  }
}

/** A bracket expression starting at p[start] === '['. */
function bracket(p: string, start: number): { src: string; end: number } {
  let i = start + 1;
  let src = '[';
  if (p[i] === '^') {
    src += '^';
    i++;
  }
  if (p[i] === ']') throw unsupported('"]" first in a bracket expression');
  while (i < p.length && p[i] !== ']') {
    const c = p[i]!;
    if (c === '[' && (p[i + 1] === ':' || p[i + 1] === '.' || p[i + 1] === '=')) throw unsupported(`[${p[i + 1]}…${p[i + 1]}] in a bracket expression`);
    if (c === '\\') {
      src += escape(p, i + 1, true);
      i += 2;
      continue;
    }
    src += c === '[' || c === '/' ? `\\${c}` : c;
    i++;
  }
  if (i >= p.length) throw new SqlError('invalid_input', SQLSTATE.invalid_regular_expression, 'invalid regular expression: brackets [] not balanced');
  return { src: `${src}]`, end: i + 1 };
}
