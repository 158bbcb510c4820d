/**
 * Lookups in a constant table by a key that came from a request (a field name, a header token, an
 * enum-like value). `TABLE[key]` would answer `constructor`, `toString` or `__proto__` with what
 * every object inherits (a function, Object.prototype), which then fails somewhere downstream as
 * a 500 or steers behaviour; only the table's own entries count.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
