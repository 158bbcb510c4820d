/**
 * What a key list's `search` matches: a key's name, owner and metadata labels and values, compared
 * case-insensitively in every script. The text is kept with the key (`api_keys.search_text`),
 * folded here in JavaScript when the key is written, and the search term is folded the same way:
 * SQLite's `lower()` folds ASCII only (an `Ä` never matched `ä`, or even itself through a lowered
 * term), and searching the metadata's JSON text matched its punctuation and escapes (`{` matched
 * every key, `"hi"` missed a value holding it).
 */

/** Case- and compatibility-folded text (NFKC, then lower case): both sides of a search go through it. */
export function foldForSearch(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** The searchable text of a key: name, owner, then each metadata label and value, one per line. */
export function keySearchText(name: string, owner: string | null, metadata: Record<string, string>): string {
  const parts = [name, owner ?? ''];
  for (const [label, value] of Object.entries(metadata)) parts.push(label, value);
  return foldForSearch(parts.join('\n'));
}

/** A LIKE pattern matching `term` anywhere, with `!` as the escape character. */
export function searchPattern(term: string): string {
  return `%${foldForSearch(term).replace(/[!%_]/g, '!$&')}%`;
}
