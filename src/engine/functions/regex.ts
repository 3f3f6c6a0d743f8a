/**
 * The regular-expression functions (PostgreSQL 15 docs 9.7.3, table 9.10's regexp_*) on the
 * project's one matcher (../exec/regex.ts: re2js, linear time, 0A000 for what it reads
 * differently). Positions and lengths count characters (code points), as PostgreSQL's do.
 *
 *   regexp_replace('a1b22', '\d+', '#', 'g')        → 'a#b#'
 *   regexp_replace('abcabc', 'b', 'X', 1, 2)        → 'abcaXc'   (the 2nd match only)
 *   regexp_match('foobarbequebaz', '(bar)(beque)') → {bar,beque}
 *   regexp_count('ABCABC', 'b', 1, 'i')             → 2
 *   regexp_instr('ABCDEF', 'c(.)(..)', 1, 1, 0, 'i', 2) → 5
 *
 * Flags (parse_re_flags): `i` and `c` (the last one wins), `g` where the function takes it,
 * `s` and `t` (the defaults); `n p w x b e q` are 0A000; anything else is 22023.
 * regexp_matches (set-returning) is registered in ./set-returning.ts over regexpMatches here.
 */
import { type PgType, type Value, SQLSTATE, arrayOf, formatArrayText } from '../../types/index.js';
import { SqlError, notSupported } from '../errors.js';
import { type RegexMatch, type RegexSearcher, regexFor, regexSearcher } from '../exec/regex.js';
import { T } from '../types.js';
import type { Family, Kernel, Signature } from './signature.js';

const sig = (params: readonly PgType[], result: PgType, kernel: Kernel): Signature => Object.freeze({ params, result, kernel });

function invalidValue(param: string, v: number): SqlError {
  return new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid value for parameter "${param}": ${v}`);
}

interface Flags {
  readonly ci: boolean;
  readonly global: boolean;
}

function parseFlags(flags: string, fn: string, allowGlobal: boolean): Flags {
  let ci = false;
  let global = false;
  for (const c of flags) {
    switch (c) {
      case 'g':
        if (!allowGlobal) throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `${fn}() does not support the "global" option`);
        global = true;
        break;
      case 'i':
        ci = true;
        break;
      case 'c':
        ci = false;
        break;
      case 's':
      case 't':
        break;
      case 'n':
      case 'p':
      case 'w':
      case 'x':
      case 'b':
      case 'e':
      case 'q':
        throw notSupported(`regular expression option "${c}"`);
      default:
        throw new SqlError('invalid_input', SQLSTATE.invalid_parameter_value, `invalid regular expression option: "${c}"`);
    }
  }
  return { ci, global };
}

/** The UTF-16 offset of character `n` (0-based) of `s`, or s.length + 1 past the end. */
function offsetOfChar(s: string, n: number): number {
  let i = 0;
  for (let k = 0; k < n; k++) {
    if (i >= s.length) return s.length + 1;
    i += (s.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
  }
  return i;
}

/** The character count of s[0, offset). */
function charsBefore(s: string, offset: number): number {
  let n = 0;
  for (let i = 0; i < offset; i += (s.codePointAt(i) ?? 0) > 0xffff ? 2 : 1) n++;
  return n;
}

/**
 * The matches from character `start` (1-based), as setup_regexp_matches finds them: the next
 * search begins where a match ended, one character later after an empty match.
 */
function* matches(re: RegexSearcher, s: string, start: number, global: boolean): Generator<RegexMatch> {
  let from = offsetOfChar(s, start - 1);
  while (from <= s.length) {
    const m = re.search(s, from);
    if (m === null) return;
    yield m;
    if (!global) return;
    from = m.end;
    if (m.start === m.end) from += (s.codePointAt(from) ?? 0) > 0xffff ? 2 : 1;
  }
}

/** The replacement text of one match: `\1`…`\9` its groups, `\&` the whole match, `\\` a backslash. */
function substitute(rep: string, s: string, m: RegexMatch): string {
  if (!rep.includes('\\')) return rep;
  let out = '';
  for (let i = 0; i < rep.length; i++) {
    const c = rep[i]!;
    const d = rep[i + 1];
    if (c !== '\\' || d === undefined) {
      out += c;
      continue;
    }
    if (d >= '1' && d <= '9') {
      out += m.groups[Number(d) - 1] ?? '';
      i++;
    } else if (d === '&') {
      out += s.slice(m.start, m.end);
      i++;
    } else if (d === '\\') {
      out += '\\';
      i++;
    } else out += c;
  }
  return out;
}

/** regexp_replace: `n` 0 replaces every match, else only the n-th. */
function replace(s: string, pattern: string, rep: string, start: number, n: number, flags: Flags): string {
  if (start <= 0) throw invalidValue('start', start);
  if (n < 0) throw invalidValue('n', n);
  const re = regexSearcher(pattern, flags.ci);
  let out = '';
  let copied = 0;
  let k = 0;
  for (const m of matches(re, s, start, n !== 1 || flags.global)) {
    k++;
    if (n !== 0 && k !== n) continue;
    out += s.slice(copied, m.start) + substitute(rep, s, m);
    copied = m.end;
    if (n !== 0) break;
  }
  return out + s.slice(copied);
}

const arg = (a: readonly Value[], i: number, dflt: number): number => (a.length > i ? (a[i] as number) : dflt);

/** regexp_replace(source, pattern, replacement [, start [, N]] [, flags]) in its five shapes. */
const regexpReplace = (shape: 'flags' | 'start' | 'startN' | 'startNflags'): Kernel => (a) => {
  const [s, p, r] = [a[0] as string, a[1] as string, a[2] as string];
  switch (shape) {
    case 'flags': {
      const f = parseFlags(a.length > 3 ? (a[3] as string) : '', 'regexp_replace', true);
      return replace(s, p, r, 1, f.global ? 0 : 1, f);
    }
    case 'start':
      return replace(s, p, r, a[3] as number, 1, parseFlags('', 'regexp_replace', true));
    case 'startN':
      return replace(s, p, r, a[3] as number, a[4] as number, parseFlags('', 'regexp_replace', true));
    case 'startNflags':
      return replace(s, p, r, a[3] as number, a[4] as number, parseFlags(a[5] as string, 'regexp_replace', true));
  }
};

/** regexp_match: the first match's groups (or the whole match when there are none), NULL when none. */
const regexpMatch: Kernel = (a) => {
  const f = parseFlags(a.length > 2 ? (a[2] as string) : '', 'regexp_match', false);
  const s = a[0] as string;
  const re = regexSearcher(a[1] as string, f.ci);
  const m = re.search(s, 0);
  if (m === null) return null;
  return formatArrayText(re.groupCount === 0 ? [s.slice(m.start, m.end)] : m.groups);
};

/**
 * regexp_matches(string, pattern [, flags]), a set: each match's groups (or the whole match)
 * as text[]; with 'g' every match, else the first.
 */
export function* regexpMatches(a: readonly Value[]): Generator<Value> {
  const f = parseFlags(a.length > 2 ? (a[2] as string) : '', 'regexp_matches', true);
  const s = a[0] as string;
  const re = regexSearcher(a[1] as string, f.ci);
  for (const m of matches(re, s, 1, f.global)) yield formatArrayText(re.groupCount === 0 ? [s.slice(m.start, m.end)] : m.groups);
}

const regexpLike: Kernel = (a) => {
  const f = parseFlags(a.length > 2 ? (a[2] as string) : '', 'regexp_like', false);
  return regexFor(a[1] as string, f.ci).test(a[0] as string);
};

/** regexp_count(string, pattern [, start [, flags]]). */
const regexpCount: Kernel = (a) => {
  const start = arg(a, 2, 1);
  if (start <= 0) throw invalidValue('start', start);
  const f = parseFlags(a.length > 3 ? (a[3] as string) : '', 'regexp_count', false);
  let k = 0;
  for (const _ of matches(regexSearcher(a[1] as string, f.ci), a[0] as string, start, true)) k++;
  return k;
};

/** The n-th match from `start`, with the span of subexpression `sub` (0: the whole match). */
function nthMatch(a: readonly Value[], start: number, n: number, flagsAt: number, sub: number, fn: string): { s: string; span: [number, number] | null } {
  if (start <= 0) throw invalidValue('start', start);
  if (n <= 0) throw invalidValue('n', n);
  if (sub < 0) throw invalidValue('subexpr', sub);
  const f = parseFlags(a.length > flagsAt ? (a[flagsAt] as string) : '', fn, false);
  const s = a[0] as string;
  const re = regexSearcher(a[1] as string, f.ci);
  if (sub > re.groupCount) return { s, span: null };
  let k = 0;
  for (const m of matches(re, s, start, true)) {
    if (++k < n) continue;
    if (sub === 0) return { s, span: [m.start, m.end] };
    return { s, span: m.spans[sub - 1] ?? null };
  }
  return { s, span: null };
}

/** regexp_instr(string, pattern [, start [, N [, endoption [, flags [, subexpr]]]]]). */
const regexpInstr: Kernel = (a) => {
  const end = arg(a, 4, 0);
  if (end !== 0 && end !== 1) throw invalidValue('endoption', end);
  const r = nthMatch(a, arg(a, 2, 1), arg(a, 3, 1), 5, arg(a, 6, 0), 'regexp_instr');
  if (r.span === null) return 0;
  return charsBefore(r.s, r.span[end]) + 1;
};

/** regexp_substr(string, pattern [, start [, N [, flags [, subexpr]]]]). */
const regexpSubstr: Kernel = (a) => {
  const r = nthMatch(a, arg(a, 2, 1), arg(a, 3, 1), 4, arg(a, 5, 0), 'regexp_substr');
  return r.span === null ? null : r.s.slice(r.span[0], r.span[1]);
};

const TEXT_ARRAY = arrayOf(T.text);
const t = T.text;
const i4 = T.int4;

export const REGEX_FUNCTIONS: Family = Object.freeze({
  regexp_replace: [
    sig([t, t, t], t, regexpReplace('flags')),
    sig([t, t, t, t], t, regexpReplace('flags')),
    sig([t, t, t, i4], t, regexpReplace('start')),
    sig([t, t, t, i4, i4], t, regexpReplace('startN')),
    sig([t, t, t, i4, i4, t], t, regexpReplace('startNflags')),
  ],
  regexp_match: [sig([t, t], TEXT_ARRAY, regexpMatch), sig([t, t, t], TEXT_ARRAY, regexpMatch)],
  regexp_like: [sig([t, t], T.bool, regexpLike), sig([t, t, t], T.bool, regexpLike)],
  regexp_count: [sig([t, t], i4, regexpCount), sig([t, t, i4], i4, regexpCount), sig([t, t, i4, t], i4, regexpCount)],
  regexp_instr: [
    sig([t, t], i4, regexpInstr),
    sig([t, t, i4], i4, regexpInstr),
    sig([t, t, i4, i4], i4, regexpInstr),
    sig([t, t, i4, i4, i4], i4, regexpInstr),
    sig([t, t, i4, i4, i4, t], i4, regexpInstr),
    sig([t, t, i4, i4, i4, t, i4], i4, regexpInstr),
  ],
  regexp_substr: [
    sig([t, t], t, regexpSubstr),
    sig([t, t, i4], t, regexpSubstr),
    sig([t, t, i4, i4], t, regexpSubstr),
    sig([t, t, i4, i4, t], t, regexpSubstr),
    sig([t, t, i4, i4, t, i4], t, regexpSubstr),
  ],
});
