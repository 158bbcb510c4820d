/**
 * Wire framing of a Gemini stream for the client: `alt=sse` -> one `data:` line per chunk; otherwise
 * one JSON array written incrementally (`[` chunk `,` chunk ... `]`). Per-request state lives here.
 */
import type { ClientOptions } from '../../types.js';

export interface GeminiFramer {
  /** Text for one chunk (a JSON document). */
  chunk(json: string): string;
  /** Text that closes the stream. */
  end(): string;
  readonly sse: boolean;
}

export function createGeminiFramer(options: Pick<ClientOptions, 'sse'> | undefined): GeminiFramer {
  const sse = options?.sse !== false;
  let started = false;
  let ended = false;
  return {
    sse,
    chunk(json: string): string {
      if (ended) return '';
      if (sse) return `data: ${json}\n\n`;
      const prefix = started ? '\n,' : '[';
      started = true;
      return prefix + json;
    },
    end(): string {
      if (ended) return '';
      ended = true;
      if (sse) return '';
      return started ? '\n]' : '[]';
    },
  };
}
