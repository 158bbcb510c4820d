/**
 * The OpenAI Responses protocol. Client side (a Responses client in front of any vendor): client/
 * decodes requests and encodes responses and streams. Upstream side (upstream/): IR -> Responses,
 * for models only the Responses API serves. passthrough.ts serves a Responses client meeting a
 * Responses upstream; the endpoint builds it per request (the gateway answers with its own
 * response id), so the registry's entry below is the plain form that rewrites nothing but `model`.
 */
import type { ClientCodec, ProtocolCodec, UpstreamCodec } from '../types.js';
import type { ResponsesRequest } from './openai-responses-api.js';
import { decodeResponsesRequest } from './client/decode-request.js';
import { encodeResponsesResponse } from './client/encode-response.js';
import { createResponsesStreamEncoder } from './client/stream-encoder.js';
import { responsesPassthrough } from './passthrough.js';
import { responsesSettingName } from './client/setting-names.js';
import { decodeResponsesResponse } from './upstream/decode-response.js';
import { encodeResponsesRequest } from './upstream/encode-request.js';
import { createResponsesStreamDecoder } from './upstream/stream-decoder.js';

export const openAIResponsesClient: ClientCodec<ResponsesRequest> = {
  protocol: 'openai-responses',
  // Without stored history or a known upstream: the endpoint decodes with both (see endpoints/responses-turn.ts).
  decodeRequest: (body, ctx) => decodeResponsesRequest(body, { model: ctx.model, stream: ctx.stream, target: 'openai-chat', ...(ctx.validated ? { validated: ctx.validated } : {}) }).ir,
  encodeResponse: encodeResponsesResponse,
  createStreamEncoder: createResponsesStreamEncoder,
  settingName: responsesSettingName,
};

/** The Responses API as an upstream: models configured with `"api": "responses"`. */
const openAIResponsesUpstream: UpstreamCodec = {
  protocol: 'openai-responses',
  encodeRequest: (req, upstreamModel, target) => encodeResponsesRequest(req, upstreamModel, target),
  decodeResponse: decodeResponsesResponse,
  createStreamDecoder: createResponsesStreamDecoder,
  // Errors before a stream are OpenAI-shaped: {error:{message,type,param,code}}.
};

export const openAIResponsesProtocol: ProtocolCodec = {
  client: openAIResponsesClient,
  upstream: openAIResponsesUpstream,
  passthrough: responsesPassthrough({ background: false, sink: {} }),
};
