/** Glob match for model patterns: `*` any run of characters, `?` one character. */
function globMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  if (!pattern.includes('*') && !pattern.includes('?')) return pattern === value;
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's');
  return re.test(value);
}

export function anyGlobMatch(patterns: readonly string[], value: string): boolean {
  return patterns.some((p) => globMatch(p, value));
}
