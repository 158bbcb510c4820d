/**
 * The OpenAI Responses protocol. Client side (a Responses client in front of any vendor):
 * client/ decodes requests and encodes responses and streams; passthrough.ts serves OpenAI
 * upstreams. The upstream side (IR -> Responses, for models only the Responses API serves) lives
 * in upstream/.
 */
import type { ClientCodec } from '../types.js';
import { decodeResponsesRequest } from './client/decode-request.js';
import { encodeResponsesResponse } from './client/encode-response.js';
import { createResponsesStreamEncoder } from './client/stream-encoder.js';
import { responsesErrorBody } from './errors.js';

export const openAIResponsesClient: ClientCodec = {
  protocol: 'openai-responses',
  // Without stored history or a known upstream: the endpoint decodes with both (see endpoints/responses.ts).
  decodeRequest: (body, ctx) => decodeResponsesRequest(body, { model: ctx.model, stream: ctx.stream, target: 'openai-chat' }).ir,
  encodeResponse: encodeResponsesResponse,
  createStreamEncoder: createResponsesStreamEncoder,
  errorBody: responsesErrorBody,
};
