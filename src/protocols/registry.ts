import type { ProtocolName } from '../ir/types.js';
import { anthropicMessagesProtocol } from './anthropic-messages/index.js';
import { geminiProtocol } from './gemini/index.js';
import { openAIChatProtocol } from './openai-chat/index.js';
import { openAIResponsesProtocol } from './openai-responses/index.js';
import type { ProtocolCodec } from './types.js';

const CODECS: Partial<Record<ProtocolName, ProtocolCodec>> = {
  'openai-chat': openAIChatProtocol,
  'openai-responses': openAIResponsesProtocol,
  'anthropic-messages': anthropicMessagesProtocol,
  gemini: geminiProtocol,
};

export function codecFor(protocol: ProtocolName): ProtocolCodec {
  const codec = CODECS[protocol];
  if (!codec) throw new Error(`No codec registered for protocol ${protocol}`);
  return codec;
}
