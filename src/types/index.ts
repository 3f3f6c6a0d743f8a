/**
 * The public surface of src/types: the PostgreSQL types paxd stores, their in-memory columns,
 * text input/output, type names, units of settings, and the concepts every layer shares:
 * numeric (./numeric.ts), the calendar and date/time text (./datetime.ts), the JSON scanner
 * (./json-scan.ts). Other layers import from here.
 */
export * from './errors.js';
export * from './type.js';
export { Kind, PHYSICAL, kindOf, physicalOf } from './kind.js';
export * from './column.js';
export { ColumnBuilder, columnOf, getValue } from './builder.js';
export { parseText, formatText, formatFloat4, formatFloat8 } from './text-io.js';
export { arrayNotStorable, arrayOf, elementOf, formatArrayText, parseArrayText } from './array.js';
export {
  type DecimalValue,
  type FiniteDecimal,
  DECIMAL_NAN,
  DECIMAL_ZERO,
  addDecimal,
  addDecimalText,
  averageDecimal,
  divideDecimal,
  divideDecimals,
  formatDecimal,
  formatDecimalValue,
  parseDecimal,
  parseDecimalValue,
  parseNumeric,
  selectDivScale,
  numericWeight,
  NUMERIC_MIN_SIG_DIGITS,
  NUMERIC_MAX_DISPLAY_SCALE,
} from './numeric.js';
export {
  type DateUnit,
  UNIX_EPOCH_JD,
  date2j,
  j2date,
  isLeap,
  daysInMonth,
  formatDate,
  formatTimestamp,
  parseDate,
  parseTimestamp,
  unitOf,
} from './datetime.js';
export {
  dateTextLength,
  writeDateText,
  timestampTextLength,
  writeTimestampText,
  splitTimestamp,
  DATE_END_JD,
  DATEVAL_NOBEGIN,
  DATEVAL_NOEND,
  DAYS_IN_MONTH,
  TS_END_US,
  TS_MIN_US,
  TS_NOBEGIN,
  TS_NOEND,
  j2day,
} from './datetime.js';
export { type TimeZone, type Transition, type Abbreviation, UTC, fixedZone, offsetForLocal, timeZoneSetting, zoneAbbreviation, zoneArgument, zoneByName } from './timezone.js';
export { truncateChars } from './text/character.js';
export { zoneAbbreviationAt } from './zone-abbreviations.js';
export { UUID_TEXT_LENGTH, writeUuidText } from './text/uuid.js';
export { byteaTextLength, writeByteaText } from './text/bytea.js';
export { digitCount, putDigits } from './text/out.js';
export { jsonScan, jsonSkipWs, jsonStringEnd, jsonNumberEnd, jsonNestedEnd } from './json-scan.js';
export * from './json-value.js';
export { compareJsonb, compareJsonbValues, findKey, jsonbContains, jsonbEqual } from './json-compare.js';
export { castJson } from './json-cast.js';
export { type JsonParseMode, parseJsonValue } from './text/jsonb.js';
export { parseTypeName, parseColumns, type ColumnDef } from './parse-type.js';
export type { ColumnSpec } from './column-spec.js';
export * from './units.js';
// ./arrow.js (the Arrow mapping) is imported from its file: it loads apache-arrow, which most
// users of this barrel (`paxd sql`, the engine) never need.
export { foreignType, foreignCollation, type ForeignColumn, type ForeignTableSpec } from './foreign.js';
export { compareNumericParts, compareValues, parseNumericText, type NumericParts } from './compare.js';
export { INTERVAL_RANGE, US_PER_DAY, formatInterval, intervalNotStorable, intervalParts, makeInterval, parseInterval } from './interval.js';
export { concatRanges, concatRangesYielding, type ColumnRange } from './concat.js';
export { isJsonWs } from './json-scan.js';
export { foreignColumn } from './foreign.js';
export { firstInvalidUtf8, invalidEncoding, isCleanUtf8 } from './utf8.js';
export { T, ThriftError, decodeStruct, encodeStruct, field, removeField, setField, type TList, type TMap, type TField, type TStruct, type TValue } from './thrift.js';
export { TYPE_OID, ARRAY_OID, TYPE_SIZE, typeOid, typmodOf, typeOfOid } from './oids.js';
export { type ObjectIdTypeId, type RegTypeId, isObjectIdTypeId, isOidType, isRegType, isStorable, objectIdNotStorable, objectIdTypeNamed } from './object-id.js';
export { NAME_MAX_BYTES, charByte, parseName, parseOid, vectorElements } from './text/oid.js';
