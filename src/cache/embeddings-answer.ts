/**
 * Whether an embeddings answer may be cached: only a complete one, every vector present and not
 * empty (an upstream that answered 200 with an empty vector, or none, is not kept). Errors never
 * reach here: the pipeline keeps only answers it returns with 200. The body is the answer as the
 * caller gets it: OpenAI's `data[].embedding` (floats or base64), Gemini's `embedding.values` or
 * `embeddings[].values`.
 */
const filled = (v: unknown): boolean => (Array.isArray(v) || typeof v === 'string') && v.length > 0;

const asObject = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

export function cacheableEmbeddings(text: string): boolean {
  let body: Record<string, unknown> | undefined;
  try {
    body = asObject(JSON.parse(text));
  } catch {
    return false;
  }
  if (!body) return false;
  const vectors: unknown[] = Array.isArray(body.data)
    ? body.data.map((d) => asObject(d)?.embedding)
    : Array.isArray(body.embeddings)
      ? body.embeddings.map((e) => asObject(e)?.values)
      : body.embedding !== undefined
        ? [asObject(body.embedding)?.values]
        : [];
  return vectors.length > 0 && vectors.every(filled);
}
