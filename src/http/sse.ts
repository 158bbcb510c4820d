import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SSEEvent {
  event?: string;
  data: string;
}

const encoder = new TextEncoder();

/** One conservative SSE frame: optional `event:` line, one `data:` line, blank line. */
export function sseFrame(data: string, event?: string): string {
  return event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

export function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Parses an SSE byte stream into events. Pull-based: the upstream is read only as fast as the
 * consumer asks, so backpressure reaches the upstream socket. `onChunk` sees every raw chunk
 * (used to reset idle timers).
 */
export async function* readSSE(body: ReadableStream<Uint8Array>, onChunk?: () => void): AsyncGenerator<SSEEvent> {
  for await (const batch of readSSEBatches(body, onChunk)) yield* batch;
}

/**
 * Like readSSE, but yields together the events that arrived in the same network chunk, so a relay
 * can write them to the client in one piece: nothing waits for later bytes, there are just fewer
 * writes and promise hops per event. Batches are never empty.
 */
async function* readSSEBatches(body: ReadableStream<Uint8Array>, onChunk?: () => void): AsyncGenerator<SSEEvent[]> {
  let batch: SSEEvent[] = [];
  const parser = createParser({
    onEvent(msg: EventSourceMessage) {
      batch.push(msg.event ? { event: msg.event, data: msg.data } : { data: msg.data });
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const take = (): SSEEvent[] => {
    const out = batch;
    batch = [];
    return out;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onChunk?.();
      parser.feed(decoder.decode(value, { stream: true }));
      if (batch.length > 0) yield take();
    }
    // A last event without its blank line still counts.
    parser.feed('\n\n');
    if (batch.length > 0) yield take();
  } finally {
    reader.cancel().catch(() => {});
  }
}

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
