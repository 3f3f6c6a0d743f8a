/** LIMIT/OFFSET over materialized rows (OFFSET first, as in SQL). */
export function limitRows<T>(rows: readonly T[], limit: number | null, offset: number): T[] {
  return rows.slice(offset, limit === null ? undefined : offset + limit);
}
