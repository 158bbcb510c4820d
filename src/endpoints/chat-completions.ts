import { parseJsonObject } from '../request/body.js';
import { openAIChatClient } from '../protocols/openai-chat/index.js';
import { validateChatRequest } from '../protocols/openai-chat/client/decode-request.js';
import { hasVendorExtensions } from '../protocols/openai-chat/client/reasoning-extensions.js';
import type { EndpointContext } from './services.js';
import { authenticate, requireCapability, resolveModel } from './common.js';
import { runChat } from './chat-pipeline.js';
import type { Reply } from '../reply/reply.js';

/** POST /v1/chat/completions (also /v1beta/openai/chat/completions, for clients set up for Gemini's OpenAI-compatible endpoint) */
export async function chatCompletions(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const raw = await ctx.body.text();
  const parsed = parseJsonObject(raw);
  const req = validateChatRequest(parsed);
  const model = resolveModel(ctx, principal, req.model);
  requireCapability(model, 'chat');
  const stream = req.stream === true;
  const includeUsage = req.stream_options?.include_usage === true;
  // Gemini's and Anthropic's extensions (google.thinking_config, thinking) are read, never sent on as
  // they are (OpenAI refuses unknown fields); reasoning_effort goes only to models that take it.
  const extensions = hasVendorExtensions(parsed);
  const effort = req.reasoning_effort != null;
  return runChat(ctx, {
    client: openAIChatClient,
    model,
    raw,
    parsed,
    validated: req,
    stream,
    clientWantsUsage: includeUsage,
    clientOptions: { includeUsage },
    translateFor: (m) => extensions || (effort && m.reasoning === false),
  });
}
