/**
 * Anthropic SSE -> IR events (upstream side). Block indexes are Anthropic's; tool-call indexes in
 * the IR count tool calls only. Usage comes from message_start and is overwritten by any non-null
 * value in message_delta (cumulative, never added). A web search (`server_tool_use`, then its
 * `web_search_tool_result`) becomes web-search-start/-end; a text block's citations (which cite the
 * whole block) follow its text, before its end.
 */
import { GatewayError } from '../../../core/errors.js';
import type { SSEEvent } from '../../../wire/sse.js';
import type { IRCitation, IRFinishReason, IRStreamEvent, IRUsage } from '../../../ir/types.js';
import type { StreamDecoder } from '../../types.js';
import { isStreamEvent, type AnthropicUsage } from '../anthropic-messages-api.js';
import { createOpenBlocks, streamEndedEarly } from '../../shared/stream-blocks.js';
import { errorFromAnthropicEvent } from '../errors.js';
import { webCitations, webSearchOutcome, webSearchQueries } from './decode-response.js';
import { fromAnthropicStopReason } from './map-finish-reason.js';
import { fromAnthropicUsage, mergeAnthropicUsage } from './usage.js';
import { NOT_JSON, parseJsonOr } from '../../shared/json.js';
import { readTextDelta } from './text-delta.js';

const malformed = (): GatewayError => new GatewayError('bad_gateway', 'The upstream sent a malformed Anthropic stream event.');

export function createAnthropicStreamDecoder(): StreamDecoder {
  let wireUsage: AnthropicUsage | undefined;
  let finishReason: IRFinishReason | undefined;
  let toolCount = 0;
  let done = false;
  const blocks = createOpenBlocks<number>();
  /** Open text blocks by index: their length so far and the citations announced for them. */
  const texts = new Map<number, { length: number; citations: IRCitation[] }>();
  /** Open web search blocks by index: their input (the query) arrives as JSON deltas. */
  const searchBlocks = new Map<number, { id: string; json: string }>();
  /** Queries of the web searches started, until their result block arrives. */
  const searches = new Map<string, string[] | undefined>();

  /** A search whose result never came (the answer was cut) ends as failed. */
  const endSearches = (out: IRStreamEvent[]): void => {
    for (const [id, queries] of searches) out.push({ type: 'web-search-end', part: { type: 'web-search', id, status: 'failed', ...(queries ? { queries } : {}) } });
    searches.clear();
  };
  const citeText = (out: IRStreamEvent[], index: number): void => {
    const t = texts.get(index);
    const b = blocks.get(index);
    texts.delete(index);
    if (!t || b?.kind !== 'text') return;
    for (const c of t.citations) out.push({ type: 'text-citation', id: b.id, citation: { ...c, startIndex: 0, endIndex: t.length } });
  };

  const usage = (): IRUsage => fromAnthropicUsage(wireUsage);
  const mergeWire = (u: unknown): void => {
    wireUsage = mergeAnthropicUsage(wireUsage, u);
  };

  /** A text block's next text (from the quick read of a text delta or from a parsed event). */
  const textDelta = (out: IRStreamEvent[], index: number, delta: string | undefined): IRStreamEvent[] => {
    const b = blocks.get(index);
    if (b?.kind !== 'text' || !delta) return out;
    const text = texts.get(index);
    if (text) text.length += delta.length;
    out.push({ type: 'text-delta', id: b.id, delta });
    return out;
  };

  const fail = (error: GatewayError): IRStreamEvent[] => {
    done = true;
    return [{ type: 'error', error }];
  };

  return {
    event(ev: SSEEvent): IRStreamEvent[] {
      if (done) return [];
      if (ev.event === undefined || ev.event === 'content_block_delta') {
        const quick = readTextDelta(ev.data);
        if (quick) return textDelta([], quick.index, quick.text);
      }
      if (ev.data.trim() === '') return [];
      const json = parseJsonOr(ev.data);
      if (json === NOT_JSON) return fail(malformed());
      const type = ev.event ?? (json as { type?: unknown } | null)?.type;
      if (type === 'error') return fail(errorFromAnthropicEvent(json));
      if (!isStreamEvent(json)) return fail(malformed());
      const data = json;
      const out: IRStreamEvent[] = [];
      switch (type) {
        case 'message_start': {
          mergeWire(data.message?.usage);
          out.push({ type: 'message-start', id: data.message?.id ?? 'msg_upstream', model: data.message?.model ?? 'unknown', usage: usage() });
          break;
        }
        case 'content_block_start': {
          const index = data.index ?? -1;
          const cb = data.content_block;
          if (cb?.type === 'text') {
            const b = blocks.open(out, index, { kind: 'text', id: `t${index}` });
            texts.set(index, { length: cb.text?.length ?? 0, citations: [] });
            if (cb.text) out.push({ type: 'text-delta', id: b.id, delta: cb.text });
          } else if (cb?.type === 'thinking') {
            const b = blocks.open(out, index, { kind: 'reasoning', id: `r${index}` });
            if (cb.thinking) out.push({ type: 'reasoning-delta', id: b.id, delta: cb.thinking });
          } else if (cb?.type === 'tool_use') {
            blocks.open(out, index, { kind: 'tool', id: cb.id ?? `toolu_${toolCount}`, index: toolCount++ }, cb.name ?? '');
          } else if (cb?.type === 'server_tool_use' && cb.name === 'web_search') {
            const id = cb.id ?? `srvtoolu_${index}`;
            searchBlocks.set(index, { id, json: '' });
            searches.set(id, webSearchQueries(cb.input));
            out.push({ type: 'web-search-start', id });
          } else if (cb?.type === 'web_search_tool_result' && typeof cb.tool_use_id === 'string' && searches.has(cb.tool_use_id)) {
            // The results arrive whole in the block's start.
            const queries = searches.get(cb.tool_use_id);
            searches.delete(cb.tool_use_id);
            out.push({ type: 'web-search-end', part: { type: 'web-search', id: cb.tool_use_id, ...webSearchOutcome(cb.content), ...(queries ? { queries } : {}) } });
          }
          break;
        }
        case 'content_block_delta': {
          const index = data.index ?? -1;
          const d = data.delta;
          if (!d) break;
          if (d.type === 'text_delta') {
            textDelta(out, index, d.text);
            break;
          }
          const b = blocks.get(index);
          const search = searchBlocks.get(index);
          if (search && d.type === 'input_json_delta' && d.partial_json) search.json += d.partial_json;
          if (!b) break;
          if (b.kind === 'text' && d.type === 'citations_delta') texts.get(index)?.citations.push(...webCitations([d.citation]));
          else if (b.kind === 'reasoning' && d.type === 'thinking_delta' && d.thinking) out.push({ type: 'reasoning-delta', id: b.id, delta: d.thinking });
          else if (b.kind === 'reasoning' && d.type === 'signature_delta' && d.signature) out.push({ type: 'reasoning-signature', id: b.id, signature: d.signature });
          else if (b.kind === 'tool' && d.type === 'input_json_delta' && d.partial_json) out.push({ type: 'tool-call-delta', id: b.id, index: b.index, delta: d.partial_json });
          break;
        }
        case 'content_block_stop': {
          const index = data.index ?? -1;
          const search = searchBlocks.get(index);
          searchBlocks.delete(index);
          if (search?.json) {
            try {
              searches.set(search.id, webSearchQueries(JSON.parse(search.json)) ?? searches.get(search.id));
            } catch {
              // a malformed input leaves the query unknown
            }
          }
          citeText(out, index);
          blocks.close(out, index);
          break;
        }
        case 'message_delta':
          mergeWire(data.usage);
          if (data.delta?.stop_reason !== undefined) finishReason = fromAnthropicStopReason(data.delta.stop_reason, data.delta.stop_sequence);
          out.push({ type: 'usage', usage: usage() });
          break;
        case 'message_stop':
          done = true;
          endSearches(out);
          for (const index of [...texts.keys()]) citeText(out, index);
          blocks.closeAll(out);
          out.push({ type: 'finish', finishReason: finishReason ?? { unified: 'stop' }, usage: usage() });
          break;
        default:
          break; // ping and event types added later
      }
      return out;
    },
    end(): IRStreamEvent[] {
      if (done) return [];
      return fail(streamEndedEarly('message_stop'));
    },
  };
}
