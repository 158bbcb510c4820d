/**
 * What a model id from a request may hold. An id names a route, and its upstream part goes into an
 * upstream body, a URL path (Gemini: `/v1beta/models/{model}:generateContent`) and the
 * `x-modelgate-model` header; so no id may carry a control character (CR/LF would split a header
 * or a log line), and the upstream part of a `providerId/upstreamModel` id, which the caller writes
 * freely, carries nothing that changes a URL: whitespace, `?`, `#`, `%`, `\`, or a `.`/`..` segment.
 * An id is at most 256 characters of well-formed Unicode. Configured ids are the operator's and
 * are only held to these first rules.
 */

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** What would change the meaning of a URL the upstream part is put in. */
const URL_SPECIAL = /[\s?#%\\]/;
const DOT_SEGMENT = /(^|\/)\.{1,2}(\/|$)/;

/** Longer than any vendor's model id by far; the id is echoed in a header and every log line. */
export const MAX_MODEL_ID_LENGTH = 256;

type WellFormedString = string & { isWellFormed(): boolean };

/** Why `id` cannot name a model (`direct`: it is a caller-written `providerId/upstreamModel`), or undefined. */
export function modelIdProblem(id: string, direct: boolean): string | undefined {
  if (CONTROL.test(id)) return 'it contains a control character (such as CR, LF or NUL)';
  if (id.length > MAX_MODEL_ID_LENGTH) return `it is longer than ${MAX_MODEL_ID_LENGTH} characters`;
  // A lone surrogate is no text: no upstream, header or database takes it as it is.
  if (!(id as WellFormedString).isWellFormed()) return 'it contains a lone UTF-16 surrogate (not valid Unicode)';
  if (!direct) return undefined;
  const upstream = id.slice(id.indexOf('/') + 1);
  if (URL_SPECIAL.test(upstream)) return "its upstream model name contains whitespace, '?', '#', '%' or '\\'";
  if (DOT_SEGMENT.test(upstream)) return "its upstream model name has a '.' or '..' path segment";
  return undefined;
}

/** `id` with its control characters written as escapes (`\r`, `\n`, `\u0000`), safe to show in a message or a log line. */
export function escapeControls(id: string): string {
  return id.replace(CONTROLS, (c) => {
    if (c === '\r') return '\\r';
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
