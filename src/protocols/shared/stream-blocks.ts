/**
 * Stream decoder bookkeeping shared by the upstream sides: which IR blocks (text, reasoning, tool
 * call) are open, keyed by whatever the wire uses (a block index, a tool index, a fixed name), so
 * every opened block gets exactly one matching end event. And the error for an upstream stream
 * that stops before its protocol's final event.
 */
import { GatewayError } from '../../core/errors.js';
import type { IRStreamEvent } from '../../ir/types.js';

type OpenBlock = { kind: 'text'; id: string; refusal?: true } | { kind: 'reasoning'; id: string } | { kind: 'tool'; id: string; index: number };

function startOf(b: OpenBlock, name: string): IRStreamEvent {
  if (b.kind === 'tool') return { type: 'tool-call-start', id: b.id, index: b.index, name };
  if (b.kind === 'text') return b.refusal ? { type: 'text-start', id: b.id, refusal: true } : { type: 'text-start', id: b.id };
  return { type: 'reasoning-start', id: b.id };
}

function endOf(b: OpenBlock): IRStreamEvent {
  if (b.kind === 'tool') return { type: 'tool-call-end', id: b.id, index: b.index };
  return { type: b.kind === 'text' ? 'text-end' : 'reasoning-end', id: b.id };
}

/** The one text block and the one reasoning block of a single-choice answer (OpenAI chat, Gemini): shared, never changed. */
export const TEXT_BLOCK: OpenBlock = Object.freeze({ kind: 'text', id: 't0' });
export const REASONING_BLOCK: OpenBlock = Object.freeze({ kind: 'reasoning', id: 'r0' });
/** The text block of a refusal (OpenAI's `refusal` in place of content): text, marked as the model declining. */
export const REFUSAL_BLOCK: OpenBlock = Object.freeze({ kind: 'text', id: 't0', refusal: true });

export interface OpenBlocks<K> {
  get(key: K): OpenBlock | undefined;
  /** The block open under `key`, or opens `block` there (pushing its start event; `name` for a tool call). */
  open(out: IRStreamEvent[], key: K, block: OpenBlock, name?: string): OpenBlock;
  /** Ends the block open under `key`, if any. */
  close(out: IRStreamEvent[], key: K): void;
  /** Ends every open block: reasoning and text first, then tool calls in the order they opened. */
  closeAll(out: IRStreamEvent[]): void;
}

export function createOpenBlocks<K>(): OpenBlocks<K> {
  const open = new Map<K, OpenBlock>();
  const closeKind = (out: IRStreamEvent[], kind: OpenBlock['kind']): void => {
    for (const [key, b] of open) {
      if (b.kind !== kind) continue;
      open.delete(key);
      out.push(endOf(b));
    }
  };
  return {
    get: (key) => open.get(key),
    open(out, key, block, name = '') {
      const existing = open.get(key);
      if (existing) return existing;
      open.set(key, block);
      out.push(startOf(block, name));
      return block;
    },
    close(out, key) {
      const b = open.get(key);
      if (!b) return;
      open.delete(key);
      out.push(endOf(b));
    },
    closeAll(out) {
      closeKind(out, 'reasoning');
      closeKind(out, 'text');
      closeKind(out, 'tool');
    },
  };
}

/** The upstream closed its stream before `what` (its protocol's last event): a cut stream. */
export function streamEndedEarly(what: string): GatewayError {
  return new GatewayError('bad_gateway', `The upstream stream ended before ${what}.`);
}
