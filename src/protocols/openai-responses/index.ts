/**
 * The OpenAI Responses protocol. The upstream side (upstream/) is complete; the client side and
 * pass-through come from the Responses entry point's branch (h5-responses), which replaces the two
 * placeholders below when it is merged. Until then no route reaches them: only a Responses client
 * decodes with `client`, and only a Responses client meets a Responses upstream in pass-through.
 */
import { GatewayError } from '../../errors.js';
import { openAIErrorBody } from '../openai-chat/errors.js';
import type { ProtocolCodec } from '../types.js';
import { openAIResponsesUpstream } from './upstream/index.js';

const notWired = (): never => {
  throw new GatewayError('internal', 'The Responses API client side is not wired yet.');
};

export const openAIResponsesProtocol: ProtocolCodec = {
  client: {
    protocol: 'openai-responses',
    decodeRequest: notWired,
    encodeResponse: notWired,
    createStreamEncoder: notWired,
    errorBody: openAIErrorBody,
  },
  upstream: openAIResponsesUpstream,
  passthrough: {
    protocol: 'openai-responses',
    prepareBody: notWired,
    finishSyncBody: notWired,
    createRelay: notWired,
  },
};
