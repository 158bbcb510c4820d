/**
 * Message of an upstream error body in the common shapes: `{error:{message}}` (OpenAI, Anthropic's
 * `{type:"error",error:{type,message}}`, Google RPC), the array form `[{error:...}]` of a Gemini
 * JSON-array stream, `{error:"..."}`, `{message}`, or plain text.
 */
export function upstreamErrorMessage(status: number, bodyText: string): string {
  try {
    type Wire = { error?: { message?: unknown } | string; message?: unknown };
    let json = JSON.parse(bodyText) as Wire | Wire[] | null;
    if (Array.isArray(json)) json = json[0] ?? null;
    if (json && typeof json === 'object') {
      if (typeof json.error === 'string') return json.error;
      if (json.error && typeof json.error.message === 'string') return json.error.message;
      if (typeof json.message === 'string') return json.message;
    }
  } catch {
    // not JSON
  }
  const text = bodyText.trim().slice(0, 500);
  return text || `Upstream answered with status ${status}.`;
}
