/**
 * POSIX regular expression match, `~` and `~*` (PostgreSQL 15 docs 9.7.3), by translating
 * the common subset of PostgreSQL's ARE syntax for a linear-time engine. What the engines
 * read differently is 0A000 rather than a wrong answer:
 *
 *   translated  literals, `.` (matches newline, as ARE's default), `^ $` (string anchors),
 *               `* + ? {m} {m,} {m,n}` (m, n ≤ 255, RE_DUPMAX) and their non-greedy forms,
 *               `| ( ) (?: )`, lookahead `(?= ) (?!` (see below), brackets `[a-z] [^…]`,
 *               `\d \D \w \W` (ASCII, as under the C collation), `\s \S` (ASCII white
 *               space), `\t \n \r \f \v`, `\` before punctuation
 *   0A000       `\b \B \m \M \y \Y \A \Z`, back references, `\x \u \U \e \c \0`, character
 *               classes `[[:alpha:]]`, `[[.x.]]`, `[[=x=]]`, `]` first in a bracket, `***`
 *               directors, embedded options `(?i)`, `{` that is not a bound; for `~*`,
 *               non-ASCII letters (C-collation case folding is ASCII only)
 *
 * Why a second engine (issue #18, "one statement freezes everyone"): a JavaScript RegExp
 * backtracks, so `'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!' ~ '(a+)+$'` runs for minutes on
 * the event loop that serves every session, and nothing (not statement_timeout, not a
 * CancelRequest) can stop it once it started. Patterns run on re2js (a pure-JavaScript port
 * of RE2: an NFA/DFA engine whose time is linear in the text, whatever the pattern), measured
 * at 0.3–1 µs per short row where a RegExp takes 0.05–0.3 µs, and 87 ms over a 10 MB text for
 * `(a+)+$`. RE2 has no lookahead: a pattern with `(?=` or `(?!` runs on a RegExp only when it
 * has no unbounded quantifier (`*`, `+`, `{m,}`), no quantified group and at most one other
 * quantifier, which bounds its backtracking to a constant per position; else it is 0A000.
 *
 *   regexFor('^text 9[0-9]$', false).test('text 91')  // true
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { SQLSTATE } from '../../types/index.js';
import { notSupported, SqlError } from '../errors.js';

/** A compiled pattern: whether it matches anywhere in a text. */
export interface RegexMatcher {
  test(s: string): boolean;
}

const cache = new Map<string, RegexMatcher>();

const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);
const SPACE_CLASS = ' \\t\\n\\r\\v\\f';
/** RE_DUPMAX of PostgreSQL's regex library: the largest repetition count. */
const DUPMAX = 255;

function unsupported(what: string): SqlError {
  return notSupported(`regular expression ${what}`);
}

function invalid(reason: string): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_regular_expression, `invalid regular expression: ${reason}`);
}

/** The matcher a PostgreSQL pattern means; 2201B when it is invalid, 0A000 as listed above. */
export function regexFor(pattern: string, ci: boolean): RegexMatcher {
  const key = `${ci ? 'i' : 'c'}${pattern}`;
  let re = cache.get(key);
  if (re !== undefined) return re;
  const t = translate(pattern, ci);
  re = t.lookahead ? backtracking(t) : linear(t.src);
  if (cache.size > 256) cache.clear();
  cache.set(key, re);
  return re;
}

/** re2js, loaded by the first pattern: a statement without one (`paxd sql "select 1"`) does not pay its ~10 ms of start-up. */
let re2jsClass: typeof RE2JS | undefined;

function re2(): typeof RE2JS {
  re2jsClass ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS;
  return re2jsClass;
}

function linear(src: string): RegexMatcher {
  try {
    return re2().compile(src, re2().DOTALL);
  } catch (e) {
    throw invalid((e as Error).message.replace(/^error parsing regexp: /, ''));
  }
}

/** A RegExp, for lookahead only, and only where backtracking is bounded (the header). */
function backtracking(t: Translation): RegexMatcher {
  if (t.unbounded > 0 || t.quantifiedGroups > 0 || t.quantifiers > 1) throw unsupported('lookahead constraints (?= (?! together with quantifiers');
  try {
    return new RegExp(t.src, 'su');
  } catch (e) {
    throw invalid((e as Error).message);
  }
}

interface Translation {
  readonly src: string;
  /** Whether the pattern has `(?=` or `(?!`. */
  readonly lookahead: boolean;
  /** Counts of `*`, `+`, `{m,}`; of every quantifier; of quantifiers applied to a group. */
  readonly unbounded: number;
  readonly quantifiers: number;
  readonly quantifiedGroups: number;
}

function translate(p: string, ci: boolean): Translation {
  if (p.startsWith('***')) throw unsupported('directors (***)');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range
  if (ci && /[^\x00-\x7f]/.test(p)) throw notSupported('~* with non-ASCII characters in the pattern');
  let out = '';
  let i = 0;
  const n = p.length;
  let lookahead = false;
  let unbounded = 0;
  let quantifiers = 0;
  let quantifiedGroups = 0;
  /** Whether the atom before a quantifier is a group (its `)` was the last thing written). */
  let afterGroup = false;
  const quantified = (isUnbounded: boolean, group: boolean) => {
    quantifiers++;
    if (isUnbounded) unbounded++;
    if (group) quantifiedGroups++;
  };
  while (i < n) {
    const c = p[i]!;
    const group = afterGroup;
    afterGroup = false;
    if (c === '\\') {
      out += escape(p, i + 1, false);
      i += 2;
      continue;
    }
    if (c === '[') {
      const r = bracket(p, i, ci);
      out += r.src;
      i = r.end;
      continue;
    }
    if (c === '(' && p[i + 1] === '?') {
      const k = p[i + 2];
      if (k !== ':' && k !== '=' && k !== '!') throw unsupported('(?…) constructs other than (?: (?= (?!');
      if (k !== ':') lookahead = true;
      out += `(?${k}`;
      i += 3;
      continue;
    }
    if (c === ')') {
      out += c;
      i++;
      afterGroup = true;
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d{1,3})(,(\d{1,3})?)?\}/.exec(p.slice(i));
      if (m === null) throw unsupported('"{" that is not a bound');
      const lo = Number(m[1]);
      const hi = m[3] === undefined ? (m[2] === undefined ? lo : Number.POSITIVE_INFINITY) : Number(m[3]);
      if (lo > DUPMAX || (hi !== Number.POSITIVE_INFINITY && hi > DUPMAX)) throw invalid('invalid repetition count(s)');
      if (hi < lo) throw invalid('invalid repetition count(s)');
      quantified(hi === Number.POSITIVE_INFINITY, group);
      out += m[0];
      i += m[0].length;
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      quantified(c !== '?', group);
      out += c;
      i++;
      continue;
    }
    if (c === ']' || c === '}') {
      out += `\\${c}`;
      i++;
      continue;
    }
    out += ci && /[A-Za-z]/.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c;
    i++;
  }
  return { src: out, lookahead, unbounded, quantifiers, quantifiedGroups };
}

/** The engine syntax for `\x` at p[at] (the character after the backslash). */
function escape(p: string, at: number, inBracket: boolean): string {
  if (at >= p.length) throw invalid('invalid escape \\ sequence');
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
      // `\` before anything else is that character (ARE); both engines accept punctuation
      // escaped, and a RegExp in unicode mode only syntax characters.
      if (SYNTAX.has(c) || (inBracket && c === '-')) return `\\${c}`;
      return c;
  }
}

/**
 * A bracket expression starting at p[start] === '['. Case-insensitive (`~*`), its ASCII letters
 * and ranges gain their other case, as PostgreSQL's C-collation folding does (only ASCII: no
 * engine flag, whose Unicode folding would match the Kelvin sign K to `k`, and ſ to `s`).
 */
function bracket(p: string, start: number, ci: boolean): { src: string; end: number } {
  let i = start + 1;
  let src = '[';
  let extra = '';
  const lit = (c: string) => (c === '[' || c === '/' || c === '\\' || c === ']' || c === '^' || c === '-' ? `\\${c}` : c);
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
    const hi = p[i + 2];
    if (p[i + 1] === '-' && hi !== undefined && hi !== ']' && hi !== '\\' && c !== '[') {
      src += `${lit(c)}-${lit(hi)}`;
      if (ci) extra += otherCaseRanges(c.charCodeAt(0), hi.charCodeAt(0));
      i += 3;
      continue;
    }
    src += c === '[' || c === '/' ? `\\${c}` : c;
    if (ci && /[A-Za-z]/.test(c)) extra += c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
    i++;
  }
  if (i >= p.length) throw invalid('brackets [] not balanced');
  return { src: `${src}${extra}]`, end: i + 1 };
}

/** The ranges of the other case of the ASCII letters in lo..hi: `a-f` → `A-F`. */
function otherCaseRanges(lo: number, hi: number): string {
  let out = '';
  for (const [from, to, shift] of [[97, 122, -32], [65, 90, 32]] as const) {
    const a = Math.max(lo, from);
    const b = Math.min(hi, to);
    if (a <= b) out += `${String.fromCharCode(a + shift)}-${String.fromCharCode(b + shift)}`;
  }
  return out;
}

/** One match: where it is (UTF-16 offsets into the text) and its capture groups (null: unmatched). */
export interface RegexMatch {
  readonly start: number;
  readonly end: number;
  readonly groups: readonly (string | null)[];
  /** Where each group matched (null: unmatched), as [start, end). */
  readonly spans: readonly ([number, number] | null)[];
}

/** A compiled pattern that finds matches (regexp_replace, regexp_match, … : ../functions/regex.ts). */
export interface RegexSearcher {
  /** The number of capture groups of the pattern. */
  readonly groupCount: number;
  /** The first match starting at or after `from`. */
  search(s: string, from: number): RegexMatch | null;
}

const searchers = new Map<string, RegexSearcher>();

/** The searcher of a PostgreSQL pattern, on the same translation and engines as regexFor. */
export function regexSearcher(pattern: string, ci: boolean): RegexSearcher {
  const key = `${ci ? 'i' : 'c'}${pattern}`;
  let r = searchers.get(key);
  if (r !== undefined) return r;
  const t = translate(pattern, ci);
  r = t.lookahead ? backtrackingSearcher(backtracking(t) as RegExp) : linearSearcher(linear(t.src) as RE2JS);
  if (searchers.size > 256) searchers.clear();
  searchers.set(key, r);
  return r;
}

function linearSearcher(re: RE2JS): RegexSearcher {
  const groupCount = re.groupCount();
  return {
    groupCount,
    search(s, from) {
      const m = re.matcher(s);
      if (!m.find(from)) return null;
      const groups: (string | null)[] = [];
      const spans: ([number, number] | null)[] = [];
      for (let g = 1; g <= groupCount; g++) {
        groups.push(m.group(g));
        spans.push(m.start(g) < 0 ? null : [m.start(g), m.end(g)]);
      }
      return { start: m.start(), end: m.end(), groups, spans };
    },
  };
}

function backtrackingSearcher(re: RegExp): RegexSearcher {
  const g = new RegExp(re.source, 'gsud');
  const groupCount = new RegExp(`${re.source}|`, 'su').exec('')!.length - 1;
  return {
    groupCount,
    search(s, from) {
      g.lastIndex = from;
      const m = g.exec(s);
      if (m === null) return null;
      const spans = (m.indices ?? []).slice(1).map((x) => (x === undefined ? null : ([x[0], x[1]] as [number, number])));
      return { start: m.index, end: m.index + m[0].length, groups: m.slice(1).map((x) => x ?? null), spans };
    },
  };
}
