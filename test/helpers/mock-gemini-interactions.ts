/**
 * The Interactions API of the mock Gemini upstream (served by mock-gemini.ts on the same origin):
 * POST /v1beta/interactions (sync, `stream: true` with `step.*` / `interaction.*` events and event
 * ids ending in `event: done` / `data: [DONE]`, `background: true`), GET / DELETE
 * /v1beta/interactions/{id}, POST /v1beta/interactions/{id}/cancel. State lives here, as at Google:
 * `previous_interaction_id` continues a stored interaction. Answers are deterministic and name the
 * endpoint (`[gemini-interactions] …`) and the turn number, so tests see what the upstream knew.
 */
import type { ServerResponse } from 'node:http';
import { MOCK_AGENTS, inputSteps, mockThoughtSignature, validateCreate, validateSteps } from './mock-gemini-interactions-validate.js';
import { GoogleError, isObj, type Json } from './mock-gemini-validate.js';
import type { MockExchange } from './mock-vendor-base.js';
import { argsFromSchema } from './mock-reply-parts.js';

const TAG = '[gemini-interactions]';

interface MockInteraction {
  id: string;
  body: Json;
  status: string;
  created: string;
  updated: string;
  background: boolean;
  /** Every step of the conversation up to this turn's output. */
  conversation: Json[];
  inputSteps: Json[];
  steps: Json[];
  usage: Json;
}

export interface InteractionsMock {
  interactions: Map<string, MockInteraction>;
  /** Next stream sends its first step.start, then stays open until the client leaves or the interaction is cancelled. */
  holdNext(): void;
  /** Next stream sends its first step.start, then an `error` event, then closes. */
  failNext(message?: string): void;
  /** Next stream sends its first step.start and the event after it, then closes cleanly (no interaction.completed, no done). */
  endStreamEarlyNext(): void;
  handle(ex: MockExchange, send: (res: ServerResponse, status: number, body: unknown) => void): Promise<void>;
}


function textOf(step: Json | undefined): string {
  const content = Array.isArray(step?.content) ? (step.content as Json[]) : [];
  let text = content.filter((c) => c.type === 'text').map((c) => String(c.text)).join(' ');
  for (const c of content) {
    if (c.type === 'image') text += ' [image]';
    else if (c.type === 'document') text += ' [pdf]';
  }
  return text;
}

function resultText(step: Json): string {
  const r = step.result;
  if (typeof r === 'string') return r;
  if (Array.isArray(r)) return (r as Json[]).filter((c) => c.type === 'text').map((c) => String(c.text)).join(' ');
  return JSON.stringify(r);
}

const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The steps and usage the mock answers with. */
function answer(body: Json, conversation: Json[], input: Json[], seq: number): { steps: Json[]; status: string; usage: Json } {
  const g = isObj(body.generation_config) ? body.generation_config : {};
  const steps: Json[] = [];
  let thoughtTokens = 0;
  if (g.thinking_level !== undefined && g.thinking_level !== 'minimal') {
    const thought = `**Thinking**\n\n${TAG} thinking`;
    steps.push({ type: 'thought', signature: mockThoughtSignature(thought), ...(g.thinking_summaries === 'auto' ? { summary: [{ type: 'text', text: thought }] } : {}) });
    thoughtTokens = 3;
  }
  const turns = conversation.filter((s) => s.type === 'user_input').length;
  const inputTokens = 10 * conversation.filter((s) => s.type === 'user_input' || s.type === 'function_result').length;
  const results = input.filter((s) => s.type === 'function_result');
  const tools = (Array.isArray(body.tools) ? (body.tools as Json[]) : []).filter((t) => t.type === 'function');
  const usage = (output: number): Json => ({
    total_input_tokens: inputTokens,
    total_output_tokens: output,
    ...(thoughtTokens ? { total_thought_tokens: thoughtTokens } : {}),
    total_tokens: inputTokens + output + thoughtTokens,
    input_tokens_by_modality: [{ modality: 'text', tokens: inputTokens }],
  });
  if (!results.length && tools.length && g.tool_choice !== 'none') {
    tools.slice(0, 2).forEach((t, i) => steps.push({ type: 'function_call', id: `fc_${seq}_${i + 1}`, name: t.name, arguments: argsFromSchema(t.parameters, { otherTypes: 'string' }) }));
    return { steps, status: 'requires_action', usage: usage(5 * Math.min(2, tools.length)) };
  }
  let text: string;
  if (results.length) text = `${TAG} tool results: ${results.map(resultText).join('; ')}`;
  else {
    const lastUser = [...conversation].reverse().find((s) => s.type === 'user_input');
    text = `${TAG} ${body.agent ? 'research report on' : `turn ${turns}, you said`}: ${textOf(lastUser)}`;
  }
  let status = 'completed';
  for (const s of Array.isArray(g.stop_sequences) ? (g.stop_sequences as string[]) : []) {
    const at = s ? text.indexOf(s) : -1;
    if (at >= 0) text = text.slice(0, at);
  }
  const words = text.split(/\s+/).filter(Boolean);
  if (typeof g.max_output_tokens === 'number' && words.length > g.max_output_tokens) {
    text = words.slice(0, g.max_output_tokens).join(' ');
    status = 'incomplete';
  }
  steps.push({ type: 'model_output', content: [{ type: 'text', text }] });
  return { steps, status, usage: usage(text.split(/\s+/).filter(Boolean).length) };
}

function lifecycle(it: MockInteraction, status: string, withUsage: boolean): Json {
  const name = it.body.agent !== undefined ? { agent: it.body.agent } : { model: it.body.model };
  return { id: it.id, status, object: 'interaction', ...name, created: it.created, updated: it.updated, ...(withUsage ? { usage: it.usage } : {}) };
}

function objectOf(it: MockInteraction, timeline: boolean): Json {
  const name = it.body.agent !== undefined ? { agent: it.body.agent } : { model: it.body.model };
  return {
    id: it.id,
    status: it.status,
    ...name,
    created: it.created,
    updated: it.updated,
    ...(typeof it.body.previous_interaction_id === 'string' ? { previous_interaction_id: it.body.previous_interaction_id } : {}),
    ...(typeof it.body.system_instruction === 'string' ? { system_instruction: it.body.system_instruction } : {}),
    steps: timeline ? [...it.inputSteps, ...it.steps] : it.steps,
    usage: it.usage,
  };
}

/** The stream of one interaction: [event name, data] pairs in the documented order. */
function streamEvents(it: MockInteraction): Array<[string, Json | string]> {
  const out: Array<[string, Json | string]> = [];
  const push = (type: string, payload: Json): void => void out.push([type, { ...payload, event_type: type, event_id: `evt_${out.length}` }]);
  push('interaction.created', { interaction: lifecycle(it, 'in_progress', false) });
  push('interaction.status_update', { interaction_id: it.id, status: 'in_progress' });
  it.steps.forEach((step, index) => {
    if (step.type === 'thought') {
      const summary = Array.isArray(step.summary) ? step.summary : [];
      push('step.start', { index, step: { type: 'thought', signature: '', summary } });
      push('step.delta', { index, delta: { type: 'thought_signature', signature: step.signature } });
    } else if (step.type === 'function_call') {
      push('step.start', { index, step: { ...step, arguments: {} } });
      const json = JSON.stringify(step.arguments);
      const half = Math.ceil(json.length / 2);
      push('step.delta', { index, delta: { type: 'arguments_delta', arguments: json.slice(0, half) } });
      push('step.delta', { index, delta: { type: 'arguments_delta', arguments: json.slice(half) } });
    } else {
      const text = String(((step.content as Json[])[0] as Json).text);
      const words = text.match(/\s*\S+/g) ?? [text];
      push('step.start', { index, step: { type: 'model_output', content: [{ type: 'text', text: words[0] ?? '' }] } });
      for (const w of words.slice(1)) push('step.delta', { index, delta: { type: 'text', text: w } });
    }
    push('step.stop', { index });
  });
  push('interaction.completed', { interaction: lifecycle(it, it.status, true) });
  out.push(['done', '[DONE]']);
  return out;
}

export function createInteractionsMock(): InteractionsMock {
  const interactions = new Map<string, MockInteraction>();
  const cancelWaiters = new Map<string, () => void>();
  let hold = false;
  let fail: string | undefined;
  let endEarly = false;

  function create(ex: MockExchange, send: (res: ServerResponse, status: number, body: unknown) => void): void | Promise<void> {
    const body = validateCreate(ex.recorded.body);
    if (body.model !== undefined && !/^(gemini|gemma)-[A-Za-z0-9._-]+$/.test(String(body.model))) throw new GoogleError(404, `Model ${String(body.model)} not found.`, 'NOT_FOUND');
    if (body.agent !== undefined && !MOCK_AGENTS.includes(String(body.agent))) throw new GoogleError(404, `Agent ${String(body.agent)} not found.`, 'NOT_FOUND');
    let history: Json[] = [];
    if (typeof body.previous_interaction_id === 'string') {
      const prev = interactions.get(body.previous_interaction_id);
      if (!prev) throw new GoogleError(404, `Interaction ${body.previous_interaction_id} not found.`, 'NOT_FOUND');
      history = prev.conversation;
    }
    const calls = new Set<string>();
    validateSteps(history, 'history', calls);
    const input = validateSteps(inputSteps(body.input), 'input', calls);
    const conversation = [...history, ...input];
    const { steps, status, usage } = answer(body, conversation, input, ex.seq);
    const stamp = now();
    const it: MockInteraction = {
      id: `v1_mock${ex.seq}`,
      body,
      status,
      created: stamp,
      updated: stamp,
      background: body.background === true,
      conversation: [...conversation, ...steps],
      inputSteps: input,
      steps,
      usage,
    };
    if (body.store !== false) interactions.set(it.id, it);
    if (body.stream === true) return stream(ex, it);
    if (it.background) {
      // Runs "later": the first answer is in progress, GET shows the result.
      const done = it.status;
      it.status = 'in_progress';
      send(ex.res, 200, objectOf(it, false));
      setImmediate(() => {
        if (it.status === 'in_progress') it.status = done;
      });
      return;
    }
    send(ex.res, 200, objectOf(it, false));
  }

  async function stream(ex: MockExchange, it: MockInteraction): Promise<void> {
    const { res } = ex;
    const holding = hold;
    hold = false;
    const failing = fail;
    fail = undefined;
    const ending = endEarly;
    endEarly = false;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const write = (type: string, data: Json | string): void => {
      if (!ex.closed()) res.write(`event: ${type}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    };
    const events = streamEvents(it);
    const firstStart = events.findIndex(([t]) => t === 'step.start');
    for (let i = 0; i < events.length; i++) {
      const [type, data] = events[i]!;
      write(type, data);
      if (ending && i === firstStart + 1) break;
      if (i !== firstStart) continue;
      if (failing !== undefined) {
        it.status = 'failed';
        write('error', { event_type: 'error', error: { code: 'INTERNAL', message: failing }, event_id: 'evt_error' });
        break;
      }
      if (holding) {
        it.status = 'in_progress';
        await Promise.race([ex.untilClosed(), new Promise<void>((r) => cancelWaiters.set(it.id, r))]);
        cancelWaiters.delete(it.id);
        break;
      }
    }
    if (!ex.closed()) res.end();
  }

  async function handle(ex: MockExchange, send: (res: ServerResponse, status: number, body: unknown) => void): Promise<void> {
    const { req, url } = ex;
    const path = url.pathname;
    if (path === '/v1beta/interactions') {
      if (req.method !== 'POST') throw new GoogleError(405, `Method ${req.method} is not allowed on ${path}.`, 'UNIMPLEMENTED');
      if (ex.parseError || !ex.recorded.rawBody) throw new GoogleError(400, 'Invalid JSON payload received. Unexpected token.');
      return create(ex, send);
    }
    const m = /^\/v1beta\/interactions\/([^/]+?)(\/cancel)?$/.exec(path);
    const it = m ? interactions.get(decodeURIComponent(m[1]!)) : undefined;
    if (!m || !it) throw new GoogleError(404, `Interaction not found. (${req.method} ${path})`, 'NOT_FOUND');
    if (m[2]) {
      if (req.method !== 'POST') throw new GoogleError(405, 'Use POST to cancel.', 'UNIMPLEMENTED');
      if (!it.background) throw new GoogleError(400, 'Only background interactions can be cancelled.');
      if (it.status === 'in_progress') {
        it.status = 'cancelled';
        it.updated = now();
        cancelWaiters.get(it.id)?.();
      }
      return send(ex.res, 200, objectOf(it, false));
    }
    if (req.method === 'GET') return send(ex.res, 200, objectOf(it, true));
    if (req.method === 'DELETE') {
      interactions.delete(it.id);
      return send(ex.res, 200, {});
    }
    throw new GoogleError(405, `Method ${req.method} is not allowed on ${path}.`, 'UNIMPLEMENTED');
  }

  return {
    interactions,
    holdNext() {
      hold = true;
    },
    failNext(message = 'An internal error has occurred.') {
      fail = message;
    },
    endStreamEarlyNext() {
      endEarly = true;
    },
    handle,
  };
}
