/**
 * The one table from a protocol to what the gateway has for it: its codec (client and upstream
 * sides, pass-through) where it has one, and the reader of an upstream's error body written in its
 * shape (a Veo call's error is read as Gemini's `{error:{message,status}}`, an OpenAI video call's
 * as OpenAI's). Interactions has no IR -> upstream codec: Gemini models are reached through
 * generateContent by every other protocol (gemini-interactions/index.ts).
 */
import type { ProtocolName } from '../ir/types.js';
import { anthropicMessagesProtocol } from './anthropic-messages/index.js';
import { anthropicErrorMessage } from './anthropic-messages/errors.js';
import { interactionsErrorMessage } from './gemini-interactions/errors.js';
import { geminiProtocol } from './gemini/index.js';
import { geminiErrorMessage } from './gemini/errors.js';
import { openAIChatProtocol } from './openai-chat/index.js';
import { openAIErrorMessage } from './openai-chat/errors.js';
import { openAIResponsesProtocol } from './openai-responses/index.js';
import { responsesErrorMessage } from './openai-responses/errors.js';
import type { ProtocolCodec } from './types.js';

interface ProtocolEntry {
  codec?: ProtocolCodec;
  /** The message of an upstream error body in this protocol's shape (any body: a reader never throws). */
  errorMessage: (status: number, bodyText: string) => string;
}

const PROTOCOLS: Readonly<Record<ProtocolName, ProtocolEntry>> = {
  'openai-chat': { codec: openAIChatProtocol, errorMessage: openAIErrorMessage },
  'openai-responses': { codec: openAIResponsesProtocol, errorMessage: responsesErrorMessage },
  'anthropic-messages': { codec: anthropicMessagesProtocol, errorMessage: anthropicErrorMessage },
  gemini: { codec: geminiProtocol, errorMessage: geminiErrorMessage },
  'gemini-interactions': { errorMessage: interactionsErrorMessage },
};

export function codecFor(protocol: ProtocolName): ProtocolCodec {
  const codec = PROTOCOLS[protocol].codec;
  if (!codec) throw new Error(`No codec registered for protocol ${protocol}`);
  return codec;
}

/** The message of an upstream error body written in `protocol`'s shape. */
export function upstreamErrorText(protocol: ProtocolName, status: number, bodyText: string): string {
  return PROTOCOLS[protocol].errorMessage(status, bodyText);
}
