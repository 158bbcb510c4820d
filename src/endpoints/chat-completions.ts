import { parseJsonObject } from '../http/body.js';
import { openAIChatClient } from '../protocols/openai-chat/index.js';
import { validateChatRequest } from '../protocols/openai-chat/client/decode-request.js';
import type { RequestContext } from '../runtime.js';
import { authenticate, requireCapability, resolveModel } from './common.js';
import { runChat } from './chat-pipeline.js';
import type { Reply } from '../http/reply.js';

/** POST /v1/chat/completions */
export async function chatCompletions(ctx: RequestContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const raw = await ctx.body.text();
  const parsed = parseJsonObject(raw);
  const req = validateChatRequest(parsed);
  const model = resolveModel(ctx, principal, req.model);
  requireCapability(model, 'chat');
  const stream = req.stream === true;
  const includeUsage = req.stream_options?.include_usage === true;
  return runChat(ctx, {
    client: openAIChatClient,
    model,
    raw,
    parsed,
    validated: req,
    stream,
    clientWantsUsage: includeUsage,
    clientOptions: { includeUsage },
  });
}
