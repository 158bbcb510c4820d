/** Removes credentials from text that may reach a caller, a log line or a hook. */
const PATTERNS: RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g,
  /\bsk-ant-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /((?:x-api-key|x-goog-api-key|api[_-]?key|authorization)["']?\s*[:=]\s*["']?)[^\s"',}]{6,}/gi,
  /([?&]key=)[^&\s"']+/g,
];

export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const re of PATTERNS) {
    out = out.replace(re, (_m, prefix: unknown) => (typeof prefix === 'string' && prefix.length > 0 && !/^(sk|pk|rk)$/.test(prefix) ? `${prefix}[redacted]` : '[redacted]'));
  }
  return out;
}
