import type { ClientCodec, ProtocolCodec } from '../types.js';
import type { MessagesRequest } from './anthropic-messages-api.js';
import { decodeAnthropicRequest } from './client/decode-request.js';
import { decodeAnthropicResponse } from './upstream/decode-response.js';
import { encodeAnthropicRequest } from './upstream/encode-request.js';
import { encodeAnthropicResponse } from './client/encode-response.js';
import { anthropicPassthrough } from './passthrough.js';
import { anthropicSettingName } from './client/setting-names.js';
import { createAnthropicStreamDecoder } from './upstream/stream-decoder.js';
import { createAnthropicStreamEncoder } from './client/stream-encoder.js';

export const anthropicMessagesClient: ClientCodec<MessagesRequest> = {
  protocol: 'anthropic-messages',
  decodeRequest: (body, ctx) => decodeAnthropicRequest(body, ctx.validated),
  encodeResponse: encodeAnthropicResponse,
  createStreamEncoder: createAnthropicStreamEncoder,
  settingName: anthropicSettingName,
};

export const anthropicMessagesProtocol: ProtocolCodec = {
  client: anthropicMessagesClient,
  upstream: {
    protocol: 'anthropic-messages',
    encodeRequest: (req, upstreamModel, target) => encodeAnthropicRequest(req, upstreamModel, target),
    decodeResponse: decodeAnthropicResponse,
    createStreamDecoder: createAnthropicStreamDecoder,
  },
  passthrough: anthropicPassthrough,
};
