/**
 * How an upstream's error body is read, chosen by the protocol the upstream speaks: a Veo call is
 * read as Gemini's `{error:{message,status}}`, an OpenAI video call as OpenAI's shape, and so on.
 */
import type { ProtocolName } from '../ir/types.js';
import { anthropicErrorMessage } from '../protocols/anthropic-messages/errors.js';
import { interactionsErrorMessage } from '../protocols/gemini-interactions/errors.js';
import { geminiErrorMessage } from '../protocols/gemini/errors.js';
import { openAIErrorMessage } from '../protocols/openai-chat/errors.js';
import { responsesErrorMessage } from '../protocols/openai-responses/errors.js';

type ErrorMessageReader = (status: number, bodyText: string) => string;

const READERS: Record<ProtocolName, ErrorMessageReader> = {
  'openai-chat': openAIErrorMessage,
  'openai-responses': responsesErrorMessage,
  'anthropic-messages': anthropicErrorMessage,
  gemini: geminiErrorMessage,
  'gemini-interactions': interactionsErrorMessage,
};

/** The message of an upstream error body written in `protocol`'s shape. */
export function upstreamErrorText(protocol: ProtocolName, status: number, bodyText: string): string {
  return READERS[protocol](status, bodyText);
}
