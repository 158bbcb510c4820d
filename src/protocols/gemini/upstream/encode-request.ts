/** IR -> Gemini generateContent request body (the model travels in the URL, not the body). */
import { GatewayError } from '../../../core/errors.js';
import type { IRChatRequest, IRWarning } from '../../../ir/types.js';
import { dropped, droppedForeignOptions, ONE_ANSWER, withoutReasoningIfOff } from '../../shared/dropped-settings.js';
import type { UpstreamTarget } from '../../types.js';
import { convertToGeminiContents } from './convert-to-gemini-contents.js';
import { quoteInput } from '../../../core/quote-input.js';
import type { Json } from '../../shared/json.js';

const EFFORT_BUDGET: Record<string, number> = { minimal: 512, low: 1024, medium: 8192, high: 24576, xhigh: 32768, max: 32768 };
const EFFORT_LEVEL: Record<string, string> = { none: 'LOW', minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH', xhigh: 'HIGH', max: 'HIGH' };

/** Gemini 3 and later take `thinkingLevel`; 2.x takes `thinkingBudget`. */
function usesThinkingLevel(upstreamModel: string): boolean {
  const m = /gemini-(\d+)/.exec(upstreamModel);
  return m !== null && Number(m[1]) >= 3;
}

export function encodeGeminiRequest(request: IRChatRequest, upstreamModel: string, target?: UpstreamTarget): { body: Json; warnings: IRWarning[] } {
  const warnings: IRWarning[] = droppedForeignOptions(request, 'gemini');
  const req = withoutReasoningIfOff(request, upstreamModel, target, warnings);
  let serverSideTools = false;
  const body: Json = { contents: convertToGeminiContents(req.messages, warnings) };
  if (req.system?.length) body.systemInstruction = { parts: req.system.map((p) => ({ text: p.text })) };

  if (req.tools?.length) {
    const declarations: Json[] = [];
    const builtIns: Json[] = [];
    const search = req.tools.find((t) => t.type === 'web-search');
    for (const t of req.tools) {
      if (t.type === 'web-search') continue;
      if (t.type === 'provider') {
        if (t.protocol !== 'gemini') throw new GatewayError('unsupported', `The tool ${quoteInput(t.name)} is specific to ${t.protocol} and cannot be sent to a Gemini model.`, { param: 'tools' });
        builtIns.push(t.raw);
        continue;
      }
      declarations.push({
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        // Full JSON Schema: no lossy rewrite into Gemini's OpenAPI subset.
        ...(t.parameters && Object.keys(t.parameters).length ? { parametersJsonSchema: t.parameters } : {}),
      });
    }
    if (search) {
      // Gemini 2.x refuses Google Search together with function declarations; Gemini 3 takes both
      // when it may report its own tool calls (includeServerSideToolInvocations).
      if (declarations.length === 0) builtIns.push({ googleSearch: {} });
      else if (usesThinkingLevel(upstreamModel)) {
        builtIns.push({ googleSearch: {} });
        serverSideTools = true;
      } else {
        warnings.push({
          setting: 'tools.web_search',
          action: 'dropped (gemini 2.x cannot search with function tools)',
          message: `The model '${upstreamModel}' cannot use Google Search together with function tools; web_search was left out.`,
        });
      }
      if (search.allowedDomains?.length || search.userLocation) {
        warnings.push(dropped('tools.web_search.filters', 'gemini', 'Google Search on the Gemini API takes no domain filter or user location; ignored.'));
      }
    }
    const all = [...(declarations.length ? [{ functionDeclarations: declarations }] : []), ...builtIns];
    if (all.length) body.tools = all;
    if (req.parallelToolCalls === false) warnings.push(dropped('parallelToolCalls', 'gemini', 'Gemini has no switch for parallel function calls; ignored.'));
  }
  if (req.toolChoice?.type === 'web-search') {
    warnings.push(dropped('toolChoice', 'gemini', 'Gemini cannot be made to search; the model decides when to use Google Search.'));
  } else if (req.toolChoice) {
    const c = req.toolChoice;
    const fcc: Json =
      c.type === 'auto' ? { mode: 'AUTO' }
      : c.type === 'none' ? { mode: 'NONE' }
      : c.type === 'required' ? { mode: 'ANY' }
      : { mode: 'ANY', allowedFunctionNames: [c.name] };
    body.toolConfig = { functionCallingConfig: fcc };
  }
  if (serverSideTools) body.toolConfig = { ...(body.toolConfig as Json | undefined), includeServerSideToolInvocations: true };

  const g: Json = {};
  if (req.maxTokens !== undefined) g.maxOutputTokens = req.maxTokens;
  if (req.temperature !== undefined) g.temperature = req.temperature;
  if (req.topP !== undefined) g.topP = req.topP;
  if (req.topK !== undefined) g.topK = req.topK;
  if (req.stop?.length) {
    if (req.stop.length > 5) throw new GatewayError('unsupported', 'Gemini models accept at most 5 stop sequences.', { param: 'stop' });
    g.stopSequences = req.stop;
  }
  if (req.n !== undefined && req.n !== 1) throw new GatewayError('unsupported', ONE_ANSWER, { param: 'n' });
  if (req.presencePenalty !== undefined) g.presencePenalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) g.frequencyPenalty = req.frequencyPenalty;
  if (req.seed !== undefined) g.seed = req.seed;
  if (req.responseFormat) {
    const rf = req.responseFormat;
    if (rf.type === 'json') g.responseMimeType = 'application/json';
    else if (rf.type === 'json_schema') {
      g.responseMimeType = 'application/json';
      g.responseJsonSchema = rf.schema;
    }
  }
  const thinking = thinkingConfig(req, upstreamModel, warnings);
  if (thinking) g.thinkingConfig = thinking;
  if (req.user !== undefined) warnings.push(dropped('user', 'gemini', 'Gemini has no end-user field; ignored.'));

  // Gemini-only fields of a Gemini-shaped request (safetySettings, ...) go back where they were.
  const extra = req.providerOptions?.gemini;
  if (extra) {
    for (const [k, v] of Object.entries(extra)) {
      if (k === 'generationConfig' && v && typeof v === 'object') {
        for (const [gk, gv] of Object.entries(v as Json)) if (!(gk in g)) g[gk] = gv;
      } else if (!Object.hasOwn(body, k)) body[k] = v;
    }
  }
  if (Object.keys(g).length) body.generationConfig = g;
  return { body, warnings };
}

/** Largest thinkingBudget Gemini accepts: 32768 on Pro models, 24576 on Flash and Flash-Lite. */
function maxThinkingBudget(upstreamModel: string): number {
  return /pro/i.test(upstreamModel) ? 32_768 : 24_576;
}

function thinkingConfig(req: IRChatRequest, upstreamModel: string, warnings: IRWarning[]): Json | undefined {
  const r = req.reasoning;
  if (!r) return undefined;
  const out: Json = {};
  if (r.budgetTokens !== undefined) {
    const max = maxThinkingBudget(upstreamModel);
    out.thinkingBudget = Math.min(r.budgetTokens, max);
    if (r.budgetTokens > max) warnings.push({ setting: 'reasoning', action: `budget clamped to ${max}`, message: `The model '${upstreamModel}' takes a thinking budget of at most ${max} tokens; ${r.budgetTokens} was lowered to ${max}.` });
  } else if (r.effort) {
    if (usesThinkingLevel(upstreamModel)) {
      out.thinkingLevel = EFFORT_LEVEL[r.effort];
      if (r.effort === 'none') warnings.push({ setting: 'reasoning', action: 'none sent as thinkingLevel LOW', message: `The model '${upstreamModel}' cannot turn thinking off; the lowest level (LOW) was used.` });
    } else out.thinkingBudget = r.effort === 'none' ? 0 : EFFORT_BUDGET[r.effort];
  }
  if (r.includeThoughts !== undefined && r.effort !== 'none') out.includeThoughts = r.includeThoughts;
  return Object.keys(out).length ? out : undefined;
}
