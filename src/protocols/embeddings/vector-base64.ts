/**
 * OpenAI's `encoding_format: "base64"`: a vector's little-endian float32 bytes, base64-encoded. The
 * official openai SDK asks for it by default and decodes it itself, so an answer translated from a
 * vendor that sends floats must be encoded, never left as floats.
 */

export function vectorToBase64(vector: readonly number[]): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] as number, true);
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** The floats of a base64 vector (little-endian float32); undefined when the text is not one. */
export function vectorFromBase64(data: string): number[] | undefined {
  let binary: string;
  try {
    binary = atob(data);
  } catch {
    return undefined;
  }
  if (binary.length % 4 !== 0) return undefined;
  const view = new DataView(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i));
  const out = new Array<number>(binary.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
