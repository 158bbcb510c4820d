/**
 * Fields of a wire object the IR does not model (`service_tier`, `cache_control`, ...): kept as
 * they are, so the same protocol's upstream can send them again (the IR's `providerOptions` bag).
 * Undefined values are left out; `dropNull` leaves out nulls too.
 */
export function unmodelledFields(obj: Record<string, unknown>, modelled: ReadonlySet<string>, opts: { dropNull?: boolean } = {}): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (modelled.has(k) || v === undefined || (opts.dropNull && v === null)) continue;
    extra[k] = v;
  }
  return extra;
}
