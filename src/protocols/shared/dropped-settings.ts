/**
 * Warnings for settings an upstream cannot take: the vendor-only fields another protocol's client
 * sent (its providerOptions, re-applied only when the upstream speaks that protocol) and the IR
 * settings a vendor has no field for. One wording for all encoders, so the caller reads
 * `safetySettings: dropped (not supported by openai)` whichever vendor it is.
 */
import type { IRChatRequest, IRContentPart, IRWarning, ProtocolName, ProviderOptions } from '../../ir/types.js';
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

/** Keys of the option bags of protocols other than `target`. */
function foreignKeys(options: ProviderOptions | undefined, target: ProtocolName, nested: boolean): string[] {
  const out: string[] = [];
  for (const [protocol, bag] of Object.entries(options ?? {}) as Array<[ProtocolName, Record<string, unknown> | undefined]>) {
    if (protocol === target || !bag) continue;
    for (const [k, v] of Object.entries(bag)) {
      if (v === undefined || CONTENT_KEYS.has(k)) continue;
      if (nested && NESTED.has(k) && isJsonObject(v)) for (const sub of Object.keys(v)) out.push(`${k}.${sub}`);
      else out.push(k);
    }
  }
  return out;
}

function partOptions(p: IRContentPart): ProviderOptions[] {
  const own = p.providerOptions ? [p.providerOptions] : [];
  if (p.type !== 'tool-result') return own;
  return [...own, ...p.content.flatMap((c) => (c.providerOptions ? [c.providerOptions] : []))];
}

/**
 * One warning per vendor-only field of another protocol that the request carries: top-level fields
 * by their path, per-block fields (cache_control on messages, tools, system) once per name.
 */
export function droppedForeignOptions(req: IRChatRequest, target: ProtocolName): IRWarning[] {
  const vendor = VENDOR_OF[target];
  const top = foreignKeys(req.providerOptions, target, true);
  const blocks = new Set<string>();
  const bags: ProviderOptions[] = [
    ...(req.system ?? []).flatMap((p) => (p.providerOptions ? [p.providerOptions] : [])),
    ...req.messages.flatMap((m) => m.content.flatMap(partOptions)),
    ...(req.tools ?? []).flatMap((t) => (t.type === 'function' && t.providerOptions ? [t.providerOptions] : [])),
  ];
  for (const bag of bags) for (const k of foreignKeys(bag, target, false)) blocks.add(k);
  return [
    ...top.map((k) => dropped(k, target, `'${k}' has no equivalent for ${vendor} models; it was not sent.`)),
    ...[...blocks].map((k) => dropped(k, target, `'${k}' on messages or tools has no equivalent for ${vendor} models; it was not sent.`)),
  ];
}
