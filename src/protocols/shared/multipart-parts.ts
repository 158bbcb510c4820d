import { GatewayError } from '../../core/errors.js';

/**
 * Whether a multipart/form-data body holds more than `max` parts, counted by their delimiters
 * without parsing (the platform's parser held the event loop for 20 s on 500,000 tiny fields).
 * Stops at the limit.
 */
function tooManyParts(bytes: Uint8Array, contentType: string, max: number): boolean {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) return false;
  const delimiter = new TextEncoder().encode(`--${boundary}`);
  const first = delimiter[0] as number;
  let count = 0;
  // Plain typed-array search (no Buffer: the core runs on every host).
  for (let at = bytes.indexOf(first); at >= 0 && at + delimiter.length <= bytes.length; at = bytes.indexOf(first, at + 1)) {
    let k = 1;
    while (k < delimiter.length && bytes[at + k] === delimiter[k]) k++;
    if (k < delimiter.length) continue;
    if (++count > max + 1) return true; // the closing delimiter counts once more
    at += delimiter.length - 1;
  }
  return false;
}

/** A multipart/form-data body parsed by the platform, after its parts were counted (400 past `maxParts`, or when it cannot be parsed). */
export async function parseForm(bytes: Uint8Array, contentType: string, maxParts: number): Promise<FormData> {
  if (tooManyParts(bytes, contentType, maxParts)) throw new GatewayError('invalid_request', `The multipart/form-data body has more than ${maxParts} parts.`);
  try {
    return await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new GatewayError('invalid_request', 'The multipart/form-data body could not be parsed.');
  }
}
