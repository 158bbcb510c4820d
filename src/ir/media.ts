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
