/** What the stream pump (stream-pump.ts) takes: the upstream answer, the transform, the client's side. */
import type { GatewayError } from '../core/errors.js';
import type { UpstreamResult } from './call.js';

/** Adds wire text to what the pump sends next. */
export type Emit = (text: string) => void;

export interface StreamTransform {
  /**
   * Turns one chunk of upstream bytes into wire text (through `emit`). A throw ends the stream
   * with an error; what was emitted before the throw still goes out first.
   */
  push(chunk: Uint8Array, emit: Emit): void;
  /** Called when the upstream body ended normally (may throw, e.g. a stream cut short). */
  end(emit: Emit): void;
  /** The in-band error event after the stream started; without it a failure errors the body. */
  error?(err: GatewayError): string;
}

export interface PumpOptions {
  upstream: UpstreamResult;
  transform: StreamTransform;
  /** The caller's signal: a failure after the caller left is not reported. */
  clientSignal: AbortSignal;
  /** Scrubbed from every byte sent and from the in-band error. */
  secrets: readonly string[];
  headers: Record<string, string>;
  /** SSE keep-alive comments while the upstream is silent (off for non-SSE bodies). */
  keepAlive?: boolean;
  /** Runs once when the stream is over; `completed` only when the last byte was handed over. */
  onEnd(failure: GatewayError | undefined, completed: boolean): Promise<void>;
  /** Runs at once when the client leaves (the upstream is aborted by the pump). */
  onCancel?(): void;
}
