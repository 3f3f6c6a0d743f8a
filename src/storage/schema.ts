/** Conversions between a snapshot's stored schema (FieldJson) and typed Fields. */
import { type Field, typeName, parseTypeName } from '../types/index.js';
import type { FieldJson, SnapshotJson } from './snapshot-types.js';

const cache = new WeakMap<SnapshotJson, Field[]>();

export function fieldsOf(snapshot: SnapshotJson): Field[] {
  let f = cache.get(snapshot);
  if (f === undefined) {
    f = snapshot.fields.map(fieldFromJson);
    cache.set(snapshot, f);
  }
  return f;
}

export function fieldFromJson(j: FieldJson): Field {
  return {
    name: j.name,
    type: parseTypeName(j.type),
    notNull: j.notNull,
    fieldId: j.fieldId,
    ...(j.default !== undefined ? { default: j.default } : {}),
  };
}

export function fieldToJson(f: Field): FieldJson {
  return {
    name: f.name,
    type: typeName(f.type),
    notNull: f.notNull,
    fieldId: f.fieldId,
    ...(f.default !== undefined ? { default: f.default } : {}),
  };
}
