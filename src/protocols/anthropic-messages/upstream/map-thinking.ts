/**
 * IR reasoning -> Anthropic `thinking` (+ the max_tokens it needs), and the rules the API enforces
 * around extended thinking: the budget is >= 1024 and below max_tokens; with thinking on,
 * temperature must be 1, top_k is not allowed, top_p must be >= 0.95, tool_choice may not force a
 * tool, and an assistant turn that is waiting for tool results must start with a signed thinking
 * block. When the caller's other settings conflict, thinking is left out (with a warning) rather
 * than sending a request the API rejects.
 */
import type { IRChatRequest, IRWarning } from '../../../ir/types.js';

/** Thinking budgets used when a client states an effort instead of a budget. */
const EFFORT_BUDGET: Record<string, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 24576, max: 32000 };
const MIN_BUDGET = 1024;

type Block = Record<string, unknown>;
interface WireMessage {
  role: string;
  content: Block[];
}

/** Why thinking cannot be on for this request, if anything. */
function conflict(req: IRChatRequest, messages: WireMessage[]): string | undefined {
  if (req.toolChoice?.type === 'required' || req.toolChoice?.type === 'tool' || req.toolChoice?.type === 'web-search') return 'tool_choice forces a tool call';
  if (req.temperature !== undefined && req.temperature !== 1) return 'temperature is not 1';
  if (req.topK !== undefined) return 'top_k is set';
  if (req.topP !== undefined && req.topP < 0.95) return 'top_p is below 0.95';
  const last = messages[messages.length - 1];
  const prev = messages[messages.length - 2];
  if (last?.role === 'user' && last.content.some((b) => b.type === 'tool_result') && prev?.role === 'assistant') {
    const first = prev.content[0]?.type;
    if (first !== 'thinking' && first !== 'redacted_thinking') return 'the assistant turn awaiting tool results has no signed thinking block';
  }
  return undefined;
}

export function thinkingFor(
  req: IRChatRequest,
  messages: WireMessage[],
  maxTokens: number,
  warnings: IRWarning[],
): { thinking?: Block; maxTokens: number } {
  const r = req.reasoning;
  if (!r) return { maxTokens };
  if (r.effort === 'none' || r.budgetTokens === 0) return { thinking: { type: 'disabled' }, maxTokens };
  const requested = r.budgetTokens ?? (r.effort ? EFFORT_BUDGET[r.effort] : undefined);
  if (requested === undefined && !r.includeThoughts) return { maxTokens };
  const why = conflict(req, messages);
  if (why) {
    warnings.push({ setting: 'reasoning', action: `left out (${why})`, message: `Extended thinking was not enabled for the Anthropic model because ${why}.` });
    return { maxTokens };
  }
  if (requested === undefined) return { thinking: { type: 'adaptive' }, maxTokens };
  const budget = Math.max(MIN_BUDGET, requested);
  if (budget !== requested) {
    warnings.push({ setting: 'reasoning', action: `budget raised to ${budget}`, message: `Anthropic thinking budgets start at ${MIN_BUDGET} tokens; the budget of ${requested} was raised to ${budget}.` });
  }
  if (budget < maxTokens) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens };
  // Thinking counts toward max_tokens; keep the caller's answer budget on top of the thinking budget.
  const raised = budget + maxTokens;
  warnings.push({ setting: 'maxTokens', action: `raised to ${raised}`, message: `The thinking budget counts toward max_tokens for Anthropic models; max_tokens was raised from ${maxTokens} to ${raised}.` });
  return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: raised };
}
