import { encodeText, SSE_HEADERS } from '../http/sse.js';

/** Interval of SSE keep-alive comments while the upstream is silent (reasoning models can think for minutes). */
export const KEEP_ALIVE_MS = 15_000;
const KEEP_ALIVE = encodeText(': keep-alive\n\n');

/**
 * A streamed response fed by an async generator of wire text. Pull-based, so the client's pace
 * reaches the upstream; a cancelled body (client gone) stops the generator and runs `onCancel`.
 * While the generator is silent for KEEP_ALIVE_MS, an SSE comment block keeps proxies and clients
 * from timing out (every official SDK ignores comment blocks; callers that produce a non-SSE body
 * pass `keepAlive: false`).
 */
export function streamResponse(
  gen: AsyncGenerator<string>,
  onCancel: () => void,
  headers: Record<string, string> = SSE_HEADERS,
  keepAlive = true,
): Response {
  let lastSent = Date.now();
  let waiting = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (!keepAlive) return;
      timer = setInterval(() => {
        if (waiting && Date.now() - lastSent >= KEEP_ALIVE_MS) {
          lastSent = Date.now();
          try {
            controller.enqueue(KEEP_ALIVE);
          } catch {
            stop();
          }
        }
      }, KEEP_ALIVE_MS / 3);
      (timer as { unref?: () => void }).unref?.();
    },
    async pull(controller) {
      waiting = true;
      try {
        for (;;) {
          const { done, value } = await gen.next();
          if (done) {
            stop();
            controller.close();
            return;
          }
          if (value) {
            lastSent = Date.now();
            controller.enqueue(encodeText(value));
            return;
          }
        }
      } catch (err) {
        stop();
        controller.error(err);
      } finally {
        waiting = false;
      }
    },
    async cancel() {
      stop();
      onCancel();
      await gen.return(undefined).catch(() => undefined);
    },
  });
  return new Response(body, { status: 200, headers });
}
