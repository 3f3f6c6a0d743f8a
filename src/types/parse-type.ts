/**
 * Type names and column lists as PostgreSQL spells them.
 *
 *   parseTypeName('Character Varying(10)')  // { id: 'varchar', length: 10 }
 *   parseTypeName('decimal(12,2)')          // { id: 'numeric', precision: 12, scale: 2 }
 *   parseColumns('id int8 not null, "Name" text, price numeric(12,2) default 0')
 *     // [{ name: 'id', type: {id:'int8'}, notNull: true },
 *     //  { name: 'Name', type: {id:'text'}, notNull: false },
 *     //  { name: 'price', type: {id:'numeric',precision:12,scale:2}, notNull: false, default: '0' }]
 *
 * Typmod rules follow PostgreSQL 15 (utils/adt/numeric.c numerictypmodin, varchar.c
 * anychar_typmodin, gram.y for float(p) and char without a length meaning char(1)).
 */
import { PaxdError, SQLSTATE, unsupported } from './errors.js';
import type { PgType } from './type.js';

/** A column of `paxd create --columns`. `default` is in PostgreSQL text form. */
export interface ColumnDef {
  name: string;
  type: PgType;
  notNull: boolean;
  default?: string;
}

function syntaxError(message: string): PaxdError {
  return new PaxdError('usage', SQLSTATE.syntax_error, message);
}

function typeDoesNotExist(name: string): PaxdError {
  return new PaxdError('not_found', SQLSTATE.undefined_object, `type "${name}" does not exist`);
}

function invalidTypmod(message: string): PaxdError {
  return new PaxdError('usage', SQLSTATE.invalid_parameter_value, message);
}

/** PostgreSQL's varchar/char length limit (MaxAttrSize in characters). */
const MAX_CHAR_LENGTH = 10485760;
/** decimal128 holds 38 digits; PostgreSQL allows 1000. */
const MAX_DECIMAL128_PRECISION = 38;

/** Parses a type name (case-insensitive, PostgreSQL's spellings) into a PgType. */
export function parseTypeName(s: string): PgType {
  const src = s.trim();
  const open = src.indexOf('(');
  let base: string;
  let mods: number[] | null = null;
  let after = '';
  if (open >= 0) {
    const close = src.indexOf(')', open);
    if (close < 0) throw syntaxError(`syntax error in type name "${s}": missing ")"`);
    base = src.slice(0, open);
    mods = src
      .slice(open + 1, close)
      .split(',')
      .map((m) => {
        const t = m.trim();
        if (!/^[+-]?\d+$/.test(t)) throw syntaxError(`syntax error in type name "${s}": type modifiers must be integers`);
        return Number(t);
      });
    after = src.slice(close + 1).trim().toLowerCase().replace(/\s+/g, ' ');
  } else base = src;
  const name = base.trim().toLowerCase().replace(/\s+/g, ' ');
  if (name.endsWith('[]') || after.endsWith('[]')) throw unsupported(`array type "${s}"`);
  const noMods = (t: PgType): PgType => {
    if (mods !== null) throw syntaxError(`type modifier is not allowed for type "${name}"`);
    return t;
  };
  // "timestamp(3) with time zone": the modifier sits before the suffix.
  if (after !== '') {
    if (name === 'timestamp' && (after === 'with time zone' || after === 'without time zone')) {
      throw unsupported(`timestamp precision "${s}" (paxd stores microseconds)`);
    }
    throw syntaxError(`syntax error in type name "${s}"`);
  }
  switch (name) {
    case 'int2':
    case 'smallint':
      return noMods({ id: 'int2' });
    case 'int':
    case 'int4':
    case 'integer':
      return noMods({ id: 'int4' });
    case 'int8':
    case 'bigint':
      return noMods({ id: 'int8' });
    case 'real':
    case 'float4':
      return noMods({ id: 'float4' });
    case 'float8':
    case 'double precision':
      return noMods({ id: 'float8' });
    case 'float': {
      if (mods === null) return { id: 'float8' };
      // gram.y: float(1..24) is real, float(25..53) double precision.
      const p = one(mods, s);
      if (p < 1) throw invalidTypmod('precision for type float must be at least 1 bit');
      if (p > 53) throw invalidTypmod('precision for type float must be less than 54 bits');
      return { id: p <= 24 ? 'float4' : 'float8' };
    }
    case 'bool':
    case 'boolean':
      return noMods({ id: 'bool' });
    case 'text':
      return noMods({ id: 'text' });
    case 'varchar':
    case 'character varying':
      return mods === null ? { id: 'varchar' } : { id: 'varchar', length: charLength(mods, 'varchar', s) };
    case 'char':
    case 'character':
      // A bare char means char(1) in SQL.
      return { id: 'bpchar', length: mods === null ? 1 : charLength(mods, 'char', s) };
    case 'bpchar':
      return mods === null ? { id: 'bpchar' } : { id: 'bpchar', length: charLength(mods, 'char', s) };
    case 'bytea':
      return noMods({ id: 'bytea' });
    case 'date':
      return noMods({ id: 'date' });
    case 'timestamp':
    case 'timestamp without time zone':
      if (mods !== null) throw unsupported(`timestamp precision "${s}" (paxd stores microseconds)`);
      return { id: 'timestamp' };
    case 'timestamptz':
    case 'timestamp with time zone':
      if (mods !== null) throw unsupported(`timestamp precision "${s}" (paxd stores microseconds)`);
      return { id: 'timestamptz' };
    case 'numeric':
    case 'decimal':
      return numericType(mods, s);
    case 'uuid':
      return noMods({ id: 'uuid' });
    case 'jsonb':
      return noMods({ id: 'jsonb' });
    case 'json':
      return noMods({ id: 'json' });
    case 'time':
    case 'time without time zone':
    case 'time with time zone':
    case 'timetz':
    case 'interval':
    case 'money':
    case 'oid':
    case 'inet':
    case 'cidr':
    case 'macaddr':
    case 'bit':
    case 'bit varying':
    case 'varbit':
    case 'xml':
    case 'point':
    case 'tsvector':
      throw unsupported(`type ${name}`);
    default:
      if (!/^[a-z_][a-z0-9_$ ]*$/.test(name)) throw syntaxError(`syntax error in type name "${s}"`);
      throw typeDoesNotExist(name);
  }
}

function one(mods: number[], s: string): number {
  if (mods.length !== 1) throw invalidTypmod(`invalid type modifier in "${s}"`);
  return mods[0]!;
}

function charLength(mods: number[], name: 'varchar' | 'char', s: string): number {
  if (mods.length !== 1) throw invalidTypmod('invalid type modifier');
  const n = mods[0]!;
  if (n < 1) throw invalidTypmod(`length for type ${name} must be at least 1`);
  if (n > MAX_CHAR_LENGTH) throw invalidTypmod(`length for type ${name} cannot exceed ${MAX_CHAR_LENGTH}`);
  void s;
  return n;
}

/** numerictypmodin (PostgreSQL 15): precision 1..1000, scale -1000..1000; paxd: precision <= 38. */
function numericType(mods: number[] | null, s: string): PgType {
  if (mods === null) return { id: 'numeric' };
  if (mods.length > 2) throw invalidTypmod('invalid NUMERIC type modifier');
  const precision = mods[0]!;
  const scale = mods.length === 2 ? mods[1]! : 0;
  if (precision < 1 || precision > 1000) throw invalidTypmod(`NUMERIC precision ${precision} must be between 1 and 1000`);
  if (scale < -1000 || scale > 1000) throw invalidTypmod(`NUMERIC scale ${scale} must be between -1000 and 1000`);
  if (precision > MAX_DECIMAL128_PRECISION) {
    throw unsupported(`numeric precision ${precision} in "${s}" (decimal128 holds at most ${MAX_DECIMAL128_PRECISION} digits; use unconstrained numeric)`);
  }
  return { id: 'numeric', precision, scale };
}

// ---- column lists ----

/** NAMEDATALEN - 1: PostgreSQL truncates longer identifiers to 63 bytes. */
const MAX_IDENTIFIER_BYTES = 63;

interface Token {
  text: string;
  quoted: boolean;
}

/** Splits on commas outside parentheses and quotes. */
function splitTopLevel(spec: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i]!;
    if (quote !== null) {
      if (c === quote) {
        if (spec[i + 1] === quote) i++;
        else quote = null;
      }
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')') {
      if (--depth < 0) throw syntaxError(`syntax error in column list at ")" (offset ${i})`);
    } else if (c === ',' && depth === 0) {
      parts.push(spec.slice(start, i));
      start = i + 1;
    }
  }
  if (quote !== null) throw syntaxError(`unterminated quoted ${quote === '"' ? 'identifier' : 'string'} in column list`);
  if (depth !== 0) throw syntaxError('syntax error in column list: missing ")"');
  parts.push(spec.slice(start));
  return parts;
}

/** Words of one column definition: identifiers, quoted identifiers, strings, (…) groups. */
function tokenize(def: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < def.length) {
    const c = def[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let text = '';
      for (;;) {
        if (j >= def.length) throw syntaxError(`unterminated quote in "${def.trim()}"`);
        if (def[j] === c) {
          if (def[j + 1] === c) {
            text += c;
            j += 2;
            continue;
          }
          break;
        }
        text += def[j];
        j++;
      }
      out.push({ text: c === "'" ? `'${text}` : text, quoted: true });
      i = j + 1;
    } else if (c === '(') {
      const j = def.indexOf(')', i);
      out.push({ text: def.slice(i, j + 1), quoted: false });
      i = j + 1;
    } else if (c === ':' && def[i + 1] === ':') {
      out.push({ text: '::', quoted: false });
      i += 2;
    } else {
      let j = i;
      while (j < def.length && !/[\s"'(]/.test(def[j]!) && !(def[j] === ':' && def[j + 1] === ':')) j++;
      out.push({ text: def.slice(i, j), quoted: false });
      i = j;
    }
  }
  return out;
}

function identifier(t: Token): string {
  let name: string;
  if (t.quoted) {
    if (t.text.startsWith("'")) throw syntaxError(`syntax error at or near "'${t.text.slice(1)}'": expected a column name`);
    if (t.text === '') throw syntaxError('zero-length delimited identifier');
    name = t.text;
  } else {
    if (!/^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*$/.test(t.text)) throw syntaxError(`syntax error at or near "${t.text}": expected a column name`);
    // downcase_identifier: only ASCII letters are folded in a UTF8 database.
    name = t.text.replace(/[A-Z]/g, (ch) => ch.toLowerCase());
  }
  return truncateIdentifier(name);
}

function truncateIdentifier(name: string): string {
  const enc = new TextEncoder();
  if (enc.encode(name).length <= MAX_IDENTIFIER_BYTES) return name;
  let out = '';
  let bytes = 0;
  for (const ch of name) {
    const n = enc.encode(ch).length;
    if (bytes + n > MAX_IDENTIFIER_BYTES) break;
    out += ch;
    bytes += n;
  }
  return out;
}

const CONSTRAINT_WORDS = new Set(['not', 'null', 'default', 'constraint', 'primary', 'unique', 'check', 'references', 'generated', 'collate']);

/**
 * Parses `paxd create --columns`: comma-separated `name type [NOT NULL | NULL] [DEFAULT lit]`.
 * Defaults are literals (numbers, 'strings' with an optional ::type cast, true/false, NULL);
 * other constraints and expressions raise 0A000.
 */
export function parseColumns(spec: string): ColumnDef[] {
  if (spec.trim() === '') throw syntaxError('empty column list');
  return splitTopLevel(spec).map((def, index) => parseColumn(def, index + 1));
}

function parseColumn(def: string, position: number): ColumnDef {
  const toks = tokenize(def);
  if (toks.length === 0) throw syntaxError(`empty column definition at position ${position}`);
  if (toks.length < 2) throw syntaxError(`column "${toks[0]!.text}" needs a type`);
  const name = identifier(toks[0]!);
  let i = 1;
  const typeWords: string[] = [];
  while (i < toks.length && !(CONSTRAINT_WORDS.has(toks[i]!.text.toLowerCase()) && !toks[i]!.quoted)) {
    const t = toks[i]!;
    if (t.quoted) throw syntaxError(`syntax error at or near "${t.text}" in the type of column "${name}"`);
    typeWords.push(t.text);
    i++;
  }
  if (typeWords.length === 0) throw syntaxError(`column "${name}" needs a type`);
  const type = parseTypeName(typeWords.join(' ').replace(/\s+\(/g, '('));
  let notNull: boolean | null = null;
  let dflt: string | undefined;
  let haveDefault = false;
  while (i < toks.length) {
    const w = toks[i]!.text.toLowerCase();
    if (w === 'not' && toks[i + 1]?.text.toLowerCase() === 'null') {
      if (notNull === false) throw syntaxError(`conflicting NULL/NOT NULL declarations for column "${name}"`);
      notNull = true;
      i += 2;
    } else if (w === 'null') {
      if (notNull === true) throw syntaxError(`conflicting NULL/NOT NULL declarations for column "${name}"`);
      notNull = false;
      i++;
    } else if (w === 'default') {
      if (haveDefault) throw syntaxError(`multiple default values specified for column "${name}"`);
      haveDefault = true;
      const r = parseDefault(toks, i + 1, name);
      dflt = r.value;
      i = r.next;
    } else {
      throw unsupported(`column constraint "${toks.slice(i).map((t) => t.text).join(' ')}" on column "${name}"`);
    }
  }
  return { name, type, notNull: notNull === true, ...(dflt !== undefined ? { default: dflt } : {}) };
}

function parseDefault(toks: Token[], i: number, column: string): { value: string | undefined; next: number } {
  const t = toks[i];
  if (t === undefined) throw syntaxError(`DEFAULT without a value for column "${column}"`);
  let value: string | undefined;
  if (t.quoted && t.text.startsWith("'")) value = t.text.slice(1);
  else if (!t.quoted && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t.text)) value = t.text;
  else if (!t.quoted && /^(true|false)$/i.test(t.text)) value = t.text.toLowerCase();
  else if (!t.quoted && /^null$/i.test(t.text)) value = undefined;
  else throw unsupported(`default expression "${t.text}" for column "${column}" (only literals)`);
  let next = i + 1;
  // 'literal'::type — the cast is to the column's type in practice; accept and drop it.
  if (toks[next]?.text === '::') {
    const words: string[] = [];
    next++;
    while (next < toks.length && !CONSTRAINT_WORDS.has(toks[next]!.text.toLowerCase())) words.push(toks[next++]!.text);
    parseTypeName(words.join(' ').replace(/\s+\(/g, '('));
  }
  return { value, next };
}
