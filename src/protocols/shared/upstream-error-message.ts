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

/** An error code or parameter name as OpenAI sends them (`context_length_exceeded`, `messages[0].content`): nothing else is copied. */
const CODE = /^[A-Za-z0-9_.:-]{1,100}$/;
const PARAM = /^[A-Za-z0-9_.:[\]-]{1,200}$/;

/**
 * `code` and `param` of an OpenAI-shaped error body (`{"error":{"message","type","param","code"}}`,
 * OpenAI and OpenAI-compatible servers), for the caller's OpenAI-shaped error: SDK users branch on
 * them (`context_length_exceeded`, `invalid_api_key`, ...). Only short identifiers are kept.
 */
export function openAIErrorFields(bodyText: string): { code?: string; param?: string } {
  let error: unknown;
  try {
    error = (JSON.parse(bodyText) as { error?: unknown } | null)?.error;
  } catch {
    return {};
  }
  if (!error || typeof error !== 'object') return {};
  const { code, param } = error as { code?: unknown; param?: unknown };
  return {
    ...(typeof code === 'string' && CODE.test(code) ? { code } : {}),
    ...(typeof param === 'string' && PARAM.test(param) ? { param } : {}),
  };
}
