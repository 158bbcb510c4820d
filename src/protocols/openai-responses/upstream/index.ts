import type { UpstreamCodec } from '../../types.js';
import { upstreamErrorMessage } from '../../shared/upstream-error-message.js';
import { decodeResponsesResponse } from './decode-response.js';
import { encodeResponsesRequest } from './encode-request.js';
import { createResponsesStreamDecoder } from './stream-decoder.js';

/** The Responses API as an upstream: models configured with `"api": "responses"`. */
export const openAIResponsesUpstream: UpstreamCodec = {
  protocol: 'openai-responses',
  encodeRequest: (req, upstreamModel) => encodeResponsesRequest(req, upstreamModel),
  decodeResponse: decodeResponsesResponse,
  createStreamDecoder: createResponsesStreamDecoder,
  // Errors before a stream are OpenAI-shaped: {error:{message,type,param,code}}.
  errorMessage: upstreamErrorMessage,
};
