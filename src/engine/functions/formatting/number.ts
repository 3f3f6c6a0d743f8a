/**
 * to_char(number, text) and to_number(text, text) (PostgreSQL 15 docs 9.8, tables 9.28–9.29;
 * formatting.c's NUMDesc_prepare, NUM_processor and the *_to_char functions), in the C
 * locale (D is '.', G is ',', L is a blank, S prints '+'/'-').
 *
 *   to_char(-12.5, '999D99S')      → ' 12.50-'
 *   to_char(1234567, 'FM9,999,999') → '1,234,567'
 *   to_char(485, 'RN')             → '         CDLXXXV'
 *   to_char(0.00042, '9.99EEEE')   → ' 4.20e-04'
 *   to_number('-12,454.8', '99G999D9') → -12454.8
 *
 * A value with more integer digits than the template has is all '#'. Floats print as C's
 * "%.*f" does (exactly rounded, ties to even), with at most 15 (float4: 6) significant digits.
 */
import { PaxdError, SQLSTATE, parseDecimalValue, formatDecimalValue } from '../../../types/index.js';
import { numericRound } from '../../exec/numeric.js';
import { notSupported } from '../../errors.js';
import { fromText } from '../../exec/kernels.js';
import { T } from '../../types.js';
import type { NumKey, Template } from './template.js';
import { ordinalSuffix } from './template.js';

/** NUMDesc: what the template asks for. */
interface NumDesc {
  pre: number;
  post: number;
  /** 1-based position of the first '0' before the point (0: none). */
  zeroStart: number;
  zeroEnd: number;
  zero: boolean;
  decimal: boolean;
  fill: boolean;
  lsign: 'none' | 'pre' | 'post';
  preLsignNum: number;
  minus: boolean;
  plus: boolean;
  bracket: boolean;
  roman: boolean;
  multi: number;
  isMulti: boolean;
  eeee: boolean;
  blank: boolean;
}

const syntaxError = (message: string, detail?: string): PaxdError => new PaxdError('invalid_input', SQLSTATE.syntax_error, message, detail !== undefined ? { detail } : {});

/** NUMDesc_prepare over every keyword of the template. */
function describe(t: Template<NumKey>): NumDesc {
  const d: NumDesc = { pre: 0, post: 0, zeroStart: 0, zeroEnd: 0, zero: false, decimal: false, fill: false, lsign: 'none', preLsignNum: 0, minus: false, plus: false, bracket: false, roman: false, multi: 0, isMulti: false, eeee: false, blank: false };
  for (const n of t) {
    if (n.kind !== 'key') continue;
    if (d.eeee && n.key !== 'EEEE') throw syntaxError('"EEEE" must be the last pattern used');
    switch (n.key) {
      case '9':
        if (d.bracket) throw syntaxError('"9" must be ahead of "PR"');
        if (d.isMulti) d.multi++;
        else if (d.decimal) d.post++;
        else d.pre++;
        break;
      case '0':
        if (d.bracket) throw syntaxError('"0" must be ahead of "PR"');
        if (!d.zero && !d.decimal) {
          d.zero = true;
          d.zeroStart = d.pre + 1;
        }
        if (!d.decimal) d.pre++;
        else d.post++;
        d.zeroEnd = d.pre + d.post;
        break;
      case 'B':
        if (d.pre === 0 && d.post === 0 && !d.zero) d.blank = true;
        break;
      case 'D':
      case '.':
        if (d.decimal) throw syntaxError('multiple decimal points');
        if (d.isMulti) throw syntaxError('cannot use "V" and decimal point together');
        d.decimal = true;
        break;
      case 'FM':
        d.fill = true;
        break;
      case 'S':
        if (d.lsign !== 'none') throw syntaxError('cannot use "S" twice');
        if (d.plus || d.minus || d.bracket) throw syntaxError('cannot use "S" and "PL"/"MI"/"SG"/"PR" together');
        if (!d.decimal) {
          d.lsign = 'pre';
          d.preLsignNum = d.pre;
        } else d.lsign = 'post';
        break;
      case 'MI':
        if (d.lsign !== 'none') throw syntaxError('cannot use "S" and "MI" together');
        d.minus = true;
        break;
      case 'PL':
        if (d.lsign !== 'none') throw syntaxError('cannot use "S" and "PL" together');
        d.plus = true;
        break;
      case 'SG':
        if (d.lsign !== 'none') throw syntaxError('cannot use "S" and "SG" together');
        d.minus = true;
        d.plus = true;
        break;
      case 'PR':
        if (d.lsign !== 'none' || d.plus || d.minus) throw syntaxError('cannot use "PR" and "S"/"PL"/"MI"/"SG" together');
        d.bracket = true;
        break;
      case 'RN':
      case 'rn':
        d.roman = true;
        break;
      case 'V':
        if (d.decimal) throw syntaxError('cannot use "V" and decimal point together');
        d.isMulti = true;
        break;
      case 'EEEE':
        if (d.eeee) throw syntaxError('cannot use "EEEE" twice');
        if (d.blank || d.fill || d.lsign !== 'none' || d.bracket || d.minus || d.plus || d.roman || d.isMulti)
          throw syntaxError('"EEEE" is incompatible with other formats', '"EEEE" may only be used together with digit and decimal point patterns.');
        d.eeee = true;
        break;
      default:
        break;
    }
  }
  return d;
}

// ---- exact decimal text of doubles (C's %f and %e round the exact binary value, ties to even) ----

/** |x| as digits × 10^-scale, exactly. */
function exactDecimal(x: number): { digits: bigint; scale: number } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let e: number;
  if (expBits === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = expBits - 1075;
  }
  if (e >= 0) return { digits: mant << BigInt(e), scale: 0 };
  return { digits: mant * 5n ** BigInt(-e), scale: -e };
}

/** digits × 10^-scale rounded to `f` decimals, ties to even. */
function roundEven(digits: bigint, scale: number, f: number): bigint {
  if (f >= scale) return digits * 10n ** BigInt(f - scale);
  const p = 10n ** BigInt(scale - f);
  let q = digits / p;
  const r = digits - q * p;
  if (r * 2n > p || (r * 2n === p && q % 2n === 1n)) q += 1n;
  return q;
}

function withPoint(q: bigint, f: number): string {
  const s = q.toString().padStart(f + 1, '0');
  return f === 0 ? s : `${s.slice(0, s.length - f)}.${s.slice(s.length - f)}`;
}

/** C's "%.*f" (PostgreSQL's snprintf prints NaN and Infinity by name). */
export function cFixed(x: number, f: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  const { digits, scale } = exactDecimal(x);
  const s = withPoint(roundEven(digits, scale, f), f);
  return x < 0 || Object.is(x, -0) ? `-${s}` : s;
}

/** C's "%+.*e": sign, one digit, `f` decimals, e±dd. */
function cExp(x: number, f: number): string {
  const sign = x < 0 || Object.is(x, -0) ? '-' : '+';
  if (x === 0) return `${sign}${withPoint(0n, f)}e+00`;
  const { digits, scale } = exactDecimal(x);
  let exp = digits.toString().length - 1 - scale;
  let q = roundEven(digits, scale + exp, f);
  if (q.toString().length > f + 1) {
    exp++;
    q = roundEven(digits, scale + exp, f);
  }
  return `${sign}${withPoint(q, f)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/** numeric_out_sci: the significand rounded (half away from zero) to `f` decimals, e±dd. */
function numericSci(text: string, f: number): string {
  const v = parseDecimalValue(text);
  if (v.kind === 'nan') return 'NaN';
  if (v.kind !== 'finite') return v.kind === 'pinf' ? 'Infinity' : '-Infinity';
  const neg = v.coef < 0n;
  const m = neg ? -v.coef : v.coef;
  const exp = m === 0n ? 0 : m.toString().length - 1 - v.scale;
  const shift = v.scale + exp - f;
  let q: bigint;
  if (shift <= 0) q = m * 10n ** BigInt(-shift);
  else {
    const p = 10n ** BigInt(shift);
    q = m / p;
    if ((m - q * p) * 2n >= p) q += 1n;
  }
  return `${neg ? '-' : ''}${withPoint(q, f)}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

// ---- roman numerals ----

const ROMAN: readonly (readonly [number, string])[] = [
  [1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I'],
];

/** int_to_roman: 1..3999, else 15 '#'. */
function roman(n: number): string {
  if (!(n >= 1 && n <= 3999)) return '#'.repeat(15);
  let s = '';
  for (const [v, r] of ROMAN) {
    while (n >= v) {
      s += r;
      n -= v;
    }
  }
  return s;
}

// ---- to_char ----

export type NumberInput = { kind: 'int'; value: bigint } | { kind: 'float'; value: number; digits: 6 | 15 } | { kind: 'numeric'; value: string };

/** The digits to print (`number`), their sign and the blanks before them (as the *_to_char functions prepare them). */
function prepare(d: NumDesc, x: NumberInput): { number: string; sign: '+' | '-'; preSpaces: number } {
  const hashes = () => {
    const s = '#'.repeat(d.pre + d.post + 1);
    return `${s.slice(0, d.pre)}.${s.slice(d.pre + 1)}`;
  };
  if (d.roman) {
    let n: number;
    if (x.kind === 'int') n = x.value > 2147483647n || x.value < -2147483648n ? 0 : Number(x.value);
    else if (x.kind === 'float') n = Number.isFinite(x.value) ? Number(roundEven(exactDecimal(x.value).digits, exactDecimal(x.value).scale, 0)) * Math.sign(x.value) : 0;
    else {
      n = Number(numericRound(x.value, 0));
      if (!(n >= -2147483648 && n <= 2147483647)) throw new PaxdError('invalid_input', SQLSTATE.numeric_value_out_of_range, 'integer out of range');
    }
    return { number: roman(n), sign: '+', preSpaces: 0 };
  }
  if (d.eeee) {
    if (x.kind === 'float' && !Number.isFinite(x.value)) {
      const s = '#'.repeat(d.pre + d.post + 6).split('');
      s[0] = ' ';
      s[d.pre + 1] = '.';
      return { number: s.join(''), sign: '+', preSpaces: 0 };
    }
    let s = x.kind === 'numeric' ? numericSci(x.value, d.post) : cExp(x.kind === 'int' ? Number(x.value) : x.value, d.post);
    if (x.kind === 'numeric' && (s === 'NaN' || s === 'Infinity' || s === '-Infinity')) {
      const h = '#'.repeat(d.pre + d.post + 6).split('');
      h[0] = ' ';
      h[d.pre + 1] = '.';
      return { number: h.join(''), sign: '+', preSpaces: 0 };
    }
    if (s.startsWith('+')) s = ` ${s.slice(1)}`;
    else if (!s.startsWith('-')) s = ` ${s}`;
    return { number: s, sign: '+', preSpaces: 0 };
  }
  let pre = d.pre;
  let text: string;
  if (x.kind === 'int') {
    let v = x.value;
    if (d.isMulti) {
      v *= 10n ** BigInt(d.multi);
      pre += d.multi;
    }
    text = v.toString();
    if (d.post > 0) text += `.${'0'.repeat(d.post)}`;
  } else if (x.kind === 'float') {
    let v = x.value;
    if (d.isMulti) {
      v *= 10 ** d.multi;
      pre += d.multi;
    }
    const intLen = cFixed(Math.abs(v), 0).length;
    let post = d.post;
    if (intLen >= x.digits) post = 0;
    else if (intLen + post > x.digits) post = x.digits - intLen;
    d.post = post;
    text = cFixed(v, post);
  } else {
    let v = x.value;
    if (d.isMulti) {
      const p = parseDecimalValue(v);
      if (p.kind === 'finite') v = formatDecimalValue({ kind: 'finite', coef: p.coef * 10n ** BigInt(d.multi), scale: p.scale });
      pre += d.multi;
    }
    text = v === 'NaN' || v === 'Infinity' || v === '-Infinity' ? v : numericRound(v, d.post);
  }
  const sign = text.startsWith('-') ? '-' : '+';
  let number = sign === '-' ? text.slice(1) : text;
  const dot = number.indexOf('.');
  const preLen = dot >= 0 ? dot : number.length;
  let preSpaces = 0;
  d.pre = pre;
  if (preLen < pre) preSpaces = pre - preLen;
  else if (preLen > pre) number = hashes();
  return { number, sign, preSpaces };
}

/** get_last_relevant_decnum: the last non-zero digit after the point (or the point). */
function lastRelevant(number: string): number {
  const p = number.indexOf('.');
  if (p < 0) return -1;
  let r = p;
  for (let i = p + 1; i < number.length; i++) if (number[i] !== '0') r = i;
  return r;
}

/** NUM_processor, to_char's direction. */
function render(t: Template<NumKey>, d: NumDesc, number: string, sign0: '+' | '-', preSpaces: number): string {
  if (d.eeee) return number;
  let sign: '+' | '-' | '' = sign0;
  if (d.roman) {
    const fill = d.fill;
    Object.assign(d, { lsign: 'none', preLsignNum: 0, post: 0, pre: 0, zero: false, decimal: false, minus: false, plus: false, bracket: false, fill, roman: true, isMulti: false });
    preSpaces = 0;
    sign = '';
  }
  const zeroStart = d.zeroStart > 0 ? d.zeroStart - 1 : 0;
  let signWrote: boolean;
  if (d.plus || d.minus) signWrote = !(d.plus && !d.minus);
  else {
    if (sign !== '-' && d.fill) d.bracket = false;
    signWrote = sign === '+' && d.fill && d.lsign === 'none';
    if (d.lsign === 'pre' && d.pre === d.preLsignNum) d.lsign = 'post';
  }
  let numCount = d.post + d.pre - 1;
  let last = -1;
  if (d.fill && d.decimal) {
    last = lastRelevant(number);
    if (last >= 0 && d.zeroEnd > preSpaces) {
      const lastZero = Math.min(number.length - 1, d.zeroEnd - preSpaces);
      if (last < lastZero) last = lastZero;
    }
  }
  if (!signWrote && preSpaces === 0) numCount++;
  let out = '';
  let numIn = false;
  let numCurr = 0;
  let np = 0;
  const predecSpace = () => !d.zero && np === 0 && number[0] === '0' && d.post !== 0;
  const numpart = (): void => {
    if (d.roman) return;
    if (!signWrote && (numCurr >= preSpaces || (d.zero && zeroStart === numCurr)) && (!predecSpace() || (last >= 0 && number[last] === '.'))) {
      if (d.lsign !== 'none') {
        if (d.lsign === 'pre') {
          out += sign === '-' ? '-' : '+';
          signWrote = true;
        }
      } else if (d.bracket) {
        out += sign === '+' ? ' ' : '<';
        signWrote = true;
      } else if (sign === '+') {
        if (!d.fill) out += ' ';
        signWrote = true;
      } else if (sign === '-') {
        out += '-';
        signWrote = true;
      }
    }
    if (numCurr < preSpaces && (zeroStart > numCurr || !d.zero)) {
      if (!d.fill) out += ' ';
    } else if (d.zero && numCurr < preSpaces && zeroStart <= numCurr) {
      out += '0';
      numIn = true;
    } else {
      if (number[np] === '.') {
        if (last < 0 || number[last] !== '.') out += '.';
        else if (d.fill && last >= 0 && number[last] === '.') out += '.';
      } else if (last >= 0 && np > last && currentKey !== '0') {
        // past the last relevant digit: nothing (FM)
      } else if (predecSpace()) {
        if (!d.fill) out += ' ';
        else if (last >= 0 && number[last] === '.') out += '0';
      } else {
        out += number[np] ?? '';
        numIn = true;
      }
      if (np < number.length) np++;
    }
    let end = numCount + (preSpaces > 0 ? 1 : 0) + (d.decimal ? 1 : 0);
    if (last >= 0 && last === np) end = numCurr;
    if (numCurr + 1 === end) {
      if (signWrote && d.bracket) out += sign === '+' ? ' ' : '>';
      else if (d.lsign === 'post') out += sign === '-' ? '-' : '+';
    }
    numCurr++;
  };
  let currentKey: NumKey | null = null;
  for (const n of t) {
    if (n.kind === 'char') {
      out += n.ch;
      continue;
    }
    currentKey = n.key;
    switch (n.key) {
      case '9':
      case '0':
      case '.':
      case 'D':
        numpart();
        break;
      case ',':
      case 'G':
        if (!numIn) {
          if (!d.fill) out += ' ';
        } else out += ',';
        break;
      case 'L':
        out += ' ';
        break;
      case 'RN':
        out += d.fill ? number : number.padStart(15, ' ');
        break;
      case 'rn':
        out += (d.fill ? number : number.padStart(15, ' ')).toLowerCase();
        break;
      case 'TH':
      case 'th':
        if (d.roman || number[0] === '#' || sign === '-' || d.decimal) break;
        if (!/[0-9]$/.test(number)) throw new PaxdError('invalid_input', SQLSTATE.invalid_text_representation, `"${number}" is not a number`);
        out += ordinalSuffix(number, n.key === 'TH');
        break;
      case 'MI':
        if (sign === '-') out += '-';
        else if (!d.fill) out += ' ';
        break;
      case 'PL':
        if (sign === '+') out += '+';
        else if (!d.fill) out += ' ';
        break;
      case 'SG':
        // With RN the sign is cleared to NUL, which ends PostgreSQL's output there.
        out += sign === '' ? '\0' : sign;
        break;
      default:
        break;
    }
  }
  const nul = out.indexOf('\0');
  return nul >= 0 ? out.slice(0, nul) : out;
}

/** to_char(number, text); an empty template gives ''. */
export function numberToChar(t: Template<NumKey>, x: NumberInput): string {
  if (t.length === 0) return '';
  const d = describe(t);
  const { number, sign, preSpaces } = prepare(d, x);
  return render(t, d, number, sign, preSpaces);
}

// ---- to_number ----

/** to_number(text, text): NUM_processor's reading direction, then numeric_in with the template's precision and scale. */
export function toNumber(t: Template<NumKey>, input: string): string {
  const d = describe(t);
  if (d.roman) throw notSupported('"RN" for input (to_number)');
  if (d.eeee) throw notSupported('"EEEE" for input (to_number)');
  let signCh = ' ';
  let num = '';
  let readPre = 0;
  let readPost = 0;
  let readDec = false;
  let p = 0;
  const len = input.length;
  const over = () => p >= len;
  const amount = (s: number) => p <= len - s;
  const eatNonData = (k: number) => {
    while (k-- > 0) {
      if (over()) break;
      if ('0123456789.,+-'.includes(input[p]!)) break;
      p += String.fromCodePoint(input.codePointAt(p)!).length;
    }
  };
  const numpart = (key: NumKey): void => {
    let isread = false;
    if (over()) return;
    if (input[p] === ' ') p++;
    if (over()) return;
    if (signCh === ' ' && (key === '0' || key === '9') && readPre + readPost === 0) {
      if (d.lsign === 'pre') {
        if (amount(1) && input[p] === '-') {
          p++;
          signCh = '-';
        } else if (amount(1) && input[p] === '+') {
          p++;
          signCh = '+';
        }
      } else if (input[p] === '-' || (d.bracket && input[p] === '<')) {
        signCh = '-';
        p++;
      } else if (input[p] === '+') {
        signCh = '+';
        p++;
      }
    }
    if (over()) return;
    if (/[0-9]/.test(input[p]!)) {
      if (readDec && readPost === d.post) return;
      num += input[p];
      if (readDec) readPost++;
      else readPre++;
      isread = true;
    } else if (d.decimal && !readDec) {
      if (amount(1) && input[p] === '.') {
        num += '.';
        readDec = true;
        isread = true;
      }
    }
    if (over()) return;
    if (d.lsign !== 'none' && isread && p + 1 < len && !/[0-9]/.test(input[p + 1]!)) {
      const tmp = p;
      p++;
      if (input[p] === '-') signCh = '-';
      else if (input[p] === '+') signCh = '+';
      if (signCh === ' ') p = tmp;
    } else if (!isread && d.lsign === 'none' && (d.plus || d.minus)) {
      if (input[p] === '-' || input[p] === '+') signCh = input[p]!;
    }
  };
  for (const n of t) {
    if (over()) break;
    if (n.kind === 'char') {
      p += String.fromCodePoint(input.codePointAt(p)!).length;
      continue;
    }
    switch (n.key) {
      case '9':
      case '0':
      case '.':
      case 'D':
        numpart(n.key);
        break;
      case ',':
        if (d.fill) continue;
        if (input[p] !== ',') continue;
        break;
      case 'G':
        if (d.fill) continue;
        if (amount(1) && input[p] === ',') break;
        continue;
      case 'L':
        eatNonData(1);
        continue;
      case 'TH':
      case 'th':
        if (d.roman || d.decimal) continue;
        eatNonData(2);
        continue;
      case 'MI':
        if (input[p] === '-') signCh = '-';
        else {
          eatNonData(1);
          continue;
        }
        break;
      case 'PL':
        if (input[p] === '+') signCh = '+';
        else {
          eatNonData(1);
          continue;
        }
        break;
      case 'SG':
        if (input[p] === '-' || input[p] === '+') signCh = input[p]!;
        else {
          eatNonData(1);
          continue;
        }
        break;
      default:
        continue;
    }
    p++;
  }
  if (num.endsWith('.')) num = num.slice(0, -1);
  const text = signCh + num;
  const scale = readPost;
  const precision = d.pre + d.multi + scale;
  const value = fromText({ id: 'numeric', precision, scale }, text);
  let out = fromText(T.numeric, formatDecimalValue({ kind: 'finite', coef: value as bigint, scale })) as string;
  if (d.isMulti) {
    const v = parseDecimalValue(out);
    if (v.kind === 'finite') out = formatDecimalValue({ kind: 'finite', coef: v.coef, scale: v.scale + d.multi });
  }
  return out;
}
