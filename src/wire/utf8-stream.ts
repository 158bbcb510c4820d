/**
 * UTF-8 bytes of a stream -> text, chunk by chunk, as the WHATWG Encoding spec's streaming decoder
 * gives it (one leading byte-order mark dropped). A chunk that ends on an ASCII byte (an SSE chunk
 * ends with a line feed) and follows no cut character is decoded whole: TextDecoder's streaming
 * mode leaves its fast path (on Node 20 about 2x slower per SSE chunk), so it only takes the chunks
 * cut inside a character and the ones after them. The BOM is dropped here, not by TextDecoder
 * (ignoreBOM): on Node 24 and 26 a streaming TextDecoder drops a second BOM when the first one
 * arrives cut across chunks, against the spec and Node 20.
 */
const whole = new TextDecoder('utf-8', { ignoreBOM: true });

export interface Utf8Stream {
  decode(chunk: Uint8Array): string;
  /** What a cut character left at the end (U+FFFD), or ''. */
  end(): string;
}

export function utf8Stream(): Utf8Stream {
  let streaming: TextDecoder | undefined;
  let carry = false;
  let atStart = true;
  // A byte-order mark is dropped at the start of the stream only, as TextDecoder does.
  const started = (text: string): string => {
    if (!atStart || !text) return text;
    atStart = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  };
  return {
    decode(chunk) {
      if (!chunk.length) return '';
      const last = chunk[chunk.length - 1] as number;
      if (!carry && last < 0x80) return started(whole.decode(chunk));
      streaming ??= new TextDecoder('utf-8', { ignoreBOM: true });
      carry = last >= 0x80;
      return started(streaming.decode(chunk, { stream: true }));
    },
    end() {
      carry = false;
      return streaming ? started(streaming.decode()) : '';
    },
  };
}
