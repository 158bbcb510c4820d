/**
 * Warnings for settings an upstream cannot take: the vendor-only fields another protocol's client
 * sent (its providerOptions, re-applied only when the upstream speaks that protocol) and the IR
 * settings a vendor has no field for. One wording for all encoders, so the caller reads
 * `safetySettings: dropped (not supported by openai)` whichever vendor it is.
 */
import type { IRChatRequest, IRContentPart, IRWarning, ProtocolName, ProviderOptions } from '../../ir/types.js';
import type { UpstreamTarget } from '../types.js';
import { isJsonObject } from './json.js';

/** Vendor label used in warnings. */
const VENDOR_OF: Record<ProtocolName, string> = { 'openai-chat': 'openai', 'anthropic-messages': 'anthropic', gemini: 'gemini', 'openai-responses': 'openai', 'gemini-interactions': 'gemini' };

/** Option objects whose members are reported one by one (`generationConfig.topK`, not `generationConfig`). */
const NESTED = new Set(['generationConfig', 'metadata', 'output_config']);
/** Part options that carry content rather than a setting (a Gemini thought signature). */
const CONTENT_KEYS = new Set(['thoughtSignature']);

export function dropped(setting: string, target: ProtocolName, message: string): IRWarning {
  return { setting, action: `dropped (not supported by ${VENDOR_OF[target]})`, message };
}

/** Keys of the option bags of protocols other than `target`, added to `out`. */
function foreignKeys(options: ProviderOptions | undefined, target: ProtocolName, nested: boolean, out: { add(k: string): unknown }): void {
  if (!options) return;
  for (const protocol in options) {
    const bag = (options as Record<string, Record<string, unknown> | undefined>)[protocol];
    if (protocol === target || !bag) continue;
    for (const [k, v] of Object.entries(bag)) {
      if (v === undefined || CONTENT_KEYS.has(k)) continue;
      if (nested && NESTED.has(k) && isJsonObject(v)) for (const sub of Object.keys(v)) out.add(`${k}.${sub}`);
      else out.add(k);
    }
  }
}

/** The option bags of a part (a tool result's content parts too). */
function partOptions(p: IRContentPart, target: ProtocolName, out: Set<string>): void {
  foreignKeys(p.providerOptions, target, false, out);
  if (p.type === 'tool-result') for (const c of p.content) foreignKeys(c.providerOptions, target, false, out);
}

/**
 * One warning per vendor-only field of another protocol that the request carries: top-level fields
 * by their path, per-block fields (cache_control on messages, tools, system) once per name.
 * Walks the request without building lists (most requests carry none).
 */
export function droppedForeignOptions(req: IRChatRequest, target: ProtocolName): IRWarning[] {
  const vendor = VENDOR_OF[target];
  const top: string[] = [];
  foreignKeys(req.providerOptions, target, true, { add: (k: string) => top.push(k) });
  const blocks = new Set<string>();
  for (const p of req.system ?? []) foreignKeys(p.providerOptions, target, false, blocks);
  for (const m of req.messages) for (const p of m.content) partOptions(p, target, blocks);
  for (const t of req.tools ?? []) if (t.type === 'function') foreignKeys(t.providerOptions, target, false, blocks);
  if (top.length === 0 && blocks.size === 0) return [];
  return [
    ...top.map((k) => dropped(k, target, `'${k}' has no equivalent for ${vendor} models; it was not sent.`)),
    ...[...blocks].map((k) => dropped(k, target, `'${k}' on messages or tools has no equivalent for ${vendor} models; it was not sent.`)),
  ];
}

/** The warning for reasoning settings a model does not take (the config's `reasoning: false`, or a name that does not look like a reasoning model). */
export function noReasoning(upstreamModel: string, target: UpstreamTarget = {}): IRWarning {
  const why = target.reasoning === false ? 'is configured without reasoning (reasoning: false)' : 'takes no reasoning effort (set reasoning: true on the model if it does)';
  return { setting: 'reasoning', action: 'dropped (the model takes no reasoning effort)', message: `The model '${upstreamModel}' ${why}; the reasoning setting was not sent.` };
}

/** The request without its reasoning settings when the model is configured `reasoning: false` (with the warning), else as it is. */
export function withoutReasoningIfOff(req: IRChatRequest, upstreamModel: string, target: UpstreamTarget | undefined, warnings: IRWarning[]): IRChatRequest {
  if (target?.reasoning !== false || !req.reasoning) return req;
  warnings.push(noReasoning(upstreamModel, target));
  const { reasoning: _dropped, ...rest } = req;
  return rest;
}

/**
 * The refusal of n > 1 on a translated request: the IR carries one answer, so extra candidates
 * would be generated (and billed) upstream and then lost. Pass-through routes keep n as it is.
 */
export const ONE_ANSWER =
  'This request is translated to another API, and a translated request returns one answer; ask for one (n or candidateCount 1), or call a model of your own API for several.';
