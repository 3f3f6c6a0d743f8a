/**
 * Exact decimal arithmetic on unconstrained numeric text, for sum(numeric) statistics.
 * A finite value is coef × 10^-scale with `scale` its display scale as PostgreSQL keeps it
 * (dscale: "1.50" has scale 2, "1e3" scale 0, "1.5e-3" scale 4), so that a sum prints with the
 * largest display scale of its inputs, as numeric_add does:
 *
 *   addDecimalText('1.50', '2')          // '3.50'
 *   addDecimalText('Infinity', '-Infinity') // 'NaN'
 */

export interface DecimalValue {
  readonly kind: 'finite' | 'nan' | 'pinf' | 'ninf';
  readonly coef: bigint;
  readonly scale: number;
}

const DEC_RE = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/;

export const DECIMAL_NAN: DecimalValue = { kind: 'nan', coef: 0n, scale: 0 };
const PINF: DecimalValue = { kind: 'pinf', coef: 0n, scale: 0 };
const NINF: DecimalValue = { kind: 'ninf', coef: 0n, scale: 0 };
export const DECIMAL_ZERO: DecimalValue = { kind: 'finite', coef: 0n, scale: 0 };

/** Parses numeric text; text that is not a numeric counts as NaN (it cannot be summed). */
export function parseDecimal(s: string): DecimalValue {
  const m = DEC_RE.exec(s);
  if (m === null || (m[2] === '' && (m[3] === undefined || m[3] === ''))) {
    const t = s.trim().toLowerCase();
    if (t === 'infinity' || t === '+infinity' || t === 'inf' || t === '+inf') return PINF;
    if (t === '-infinity' || t === '-inf') return NINF;
    return DECIMAL_NAN;
  }
  const frac = m[3] ?? '';
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  let coef = BigInt((m[2] || '0') + frac);
  let scale = frac.length - exp;
  if (scale < 0) {
    coef *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { kind: 'finite', coef: m[1] === '-' ? -coef : coef, scale };
}

export function addDecimal(a: DecimalValue, b: DecimalValue): DecimalValue {
  if (a.kind === 'nan' || b.kind === 'nan') return DECIMAL_NAN;
  if (a.kind !== 'finite' || b.kind !== 'finite') {
    const pinf = a.kind === 'pinf' || b.kind === 'pinf';
    const ninf = a.kind === 'ninf' || b.kind === 'ninf';
    return pinf && ninf ? DECIMAL_NAN : pinf ? PINF : NINF;
  }
  if (a.scale === b.scale) return { kind: 'finite', coef: a.coef + b.coef, scale: a.scale };
  if (a.scale < b.scale) return { kind: 'finite', coef: a.coef * 10n ** BigInt(b.scale - a.scale) + b.coef, scale: b.scale };
  return { kind: 'finite', coef: a.coef + b.coef * 10n ** BigInt(a.scale - b.scale), scale: a.scale };
}

export function formatDecimal(d: DecimalValue): string {
  switch (d.kind) {
    case 'nan':
      return 'NaN';
    case 'pinf':
      return 'Infinity';
    case 'ninf':
      return '-Infinity';
    case 'finite': {
      const neg = d.coef < 0n;
      let digits = (neg ? -d.coef : d.coef).toString();
      if (d.scale === 0) return (neg ? '-' : '') + digits;
      if (digits.length <= d.scale) digits = '0'.repeat(d.scale - digits.length + 1) + digits;
      const cut = digits.length - d.scale;
      return (neg ? '-' : '') + digits.slice(0, cut) + '.' + digits.slice(cut);
    }
  }
}

export function addDecimalText(a: string, b: string): string {
  return formatDecimal(addDecimal(parseDecimal(a), parseDecimal(b)));
}
