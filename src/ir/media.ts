import type { IRMediaSource } from './types.js';

/** `data:image/png;base64,AAAA` -> base64 source; any other URL -> url source. */
export function sourceFromUrl(url: string): IRMediaSource {
  const m = /^data:([^;,]+)?((?:;[^;,]*)*?);base64,(.*)$/s.exec(url);
  if (m) return { kind: 'base64', mediaType: m[1] ?? 'application/octet-stream', data: m[3] ?? '' };
  return { kind: 'url', url };
}

export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

const STANDARD_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const EITHER_ALPHABET = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Inline bytes as OpenAI and Anthropic accept them: the standard base64 alphabet (`+`, `/`), padded.
 * Gemini reads either alphabet with or without padding (proto3 JSON `bytes`), and the google-genai
 * Python SDK sends the URL-safe one (`-`, `_`), so bytes that cross to another vendor go through
 * here; whitespace (MIME line breaks) is dropped too. Text that is not base64 in either alphabet is
 * returned as it is, for the upstream to refuse in its own words.
 */
export function toStandardBase64(data: string): string {
  if (data.length % 4 === 0 && STANDARD_BASE64.test(data)) return data;
  const compact = data.replace(/\s+/g, '');
  if (!EITHER_ALPHABET.test(compact)) return data;
  const body = compact.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  // One character past a multiple of four cannot encode whole bytes.
  if (body.length % 4 === 1) return data;
  return body + '='.repeat((4 - (body.length % 4)) % 4);
}

/** A media type guessed from a file name or URL, for vendors that require one. */
export function guessMediaType(name: string | undefined, fallback = 'application/octet-stream'): string {
  const ext = name?.split('?')[0]?.split('.').pop()?.toLowerCase();
  switch (ext) {
    case 'png': return 'image/png';
    case 'jpg':
    case 'jpeg': return 'image/jpeg';
    case 'gif': return 'image/gif';
    case 'webp': return 'image/webp';
    case 'pdf': return 'application/pdf';
    default: return fallback;
  }
}
