/**
 * Gemini's Google Search grounding (`candidate.groundingMetadata`) -> the IR: one web search part
 * (`webSearchQueries`, the web `groundingChunks` as sources) and url citations of the answer's text
 * (`groundingSupports`: a segment of the text, in UTF-8 byte offsets, and the chunks that support it).
 */
import type { IRCitation, IRWebSearchPart } from '../../../ir/types.js';
import { isJsonObject, type Json } from '../../shared/json.js';

const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);

interface WebChunk {
  url: string;
  title?: string;
}

function webChunks(meta: Json): Array<WebChunk | undefined> {
  return (Array.isArray(meta.groundingChunks) ? meta.groundingChunks : []).map((c: unknown) => {
    const web = isJsonObject(c) && isJsonObject(c.web) ? c.web : undefined;
    if (!web || typeof web.uri !== 'string') return undefined;
    return { url: web.uri, ...(typeof web.title === 'string' ? { title: web.title } : {}) };
  });
}

/** The search Gemini ran, or undefined when the metadata shows none. */
export function groundingSearch(meta: unknown, id: string): IRWebSearchPart | undefined {
  if (!isJsonObject(meta)) return undefined;
  const queries = Array.isArray(meta.webSearchQueries) ? meta.webSearchQueries.filter((q): q is string => typeof q === 'string') : [];
  const sources = webChunks(meta).filter((c): c is WebChunk => c !== undefined);
  if (!queries.length && !sources.length) return undefined;
  return { type: 'web-search', id, status: 'completed', ...(queries.length ? { queries } : {}), sources };
}

/** The index in `text` (UTF-16 units) where UTF-8 byte `offset` falls. */
function charIndexOfByte(text: string, offset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < offset) {
    const cp = text.codePointAt(i) as number;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/** Citations of `text` (the answer's text as the segments count it), character offsets into it. */
export function groundingCitations(meta: unknown, text: string): IRCitation[] {
  if (!isJsonObject(meta)) return [];
  const chunks = webChunks(meta);
  const out: IRCitation[] = [];
  for (const support of list(meta.groundingSupports)) {
    const seg = isJsonObject(support.segment) ? support.segment : {};
    if (typeof seg.endIndex !== 'number') continue;
    const startIndex = charIndexOfByte(text, typeof seg.startIndex === 'number' ? seg.startIndex : 0);
    const endIndex = charIndexOfByte(text, seg.endIndex);
    const indices = Array.isArray(support.groundingChunkIndices) ? support.groundingChunkIndices : [];
    for (const k of indices) {
      const chunk = typeof k === 'number' ? chunks[k] : undefined;
      if (chunk) out.push({ type: 'url', ...chunk, startIndex, endIndex });
    }
  }
  return out;
}
