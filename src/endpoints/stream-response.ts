import { encodeText, SSE_HEADERS } from '../http/sse.js';

/**
 * A streamed response fed by an async generator of wire text. Pull-based, so the client's pace
 * reaches the upstream; a cancelled body (client gone) stops the generator and runs `onCancel`.
 */
export function streamResponse(gen: AsyncGenerator<string>, onCancel: () => void, headers: Record<string, string> = SSE_HEADERS): Response {
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (;;) {
          const { done, value } = await gen.next();
          if (done) {
            controller.close();
            return;
          }
          if (value) {
            controller.enqueue(encodeText(value));
            return;
          }
        }
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel() {
      onCancel();
      await gen.return(undefined).catch(() => undefined);
    },
  });
  return new Response(body, { status: 200, headers });
}
