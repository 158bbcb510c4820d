import type { ProtocolCodec } from '../types.js';
import { decodeAnthropicRequest } from './client/decode-request.js';
import { decodeAnthropicResponse } from './upstream/decode-response.js';
import { encodeAnthropicRequest } from './upstream/encode-request.js';
import { encodeAnthropicResponse } from './client/encode-response.js';
import { anthropicErrorBody, anthropicErrorMessage } from './errors.js';
import { anthropicPassthrough } from './passthrough.js';
import { anthropicSettingName } from './client/setting-names.js';
import { createAnthropicStreamDecoder } from './upstream/stream-decoder.js';
import { createAnthropicStreamEncoder } from './client/stream-encoder.js';

export const anthropicMessagesProtocol: ProtocolCodec = {
  client: {
    protocol: 'anthropic-messages',
    decodeRequest: (body) => decodeAnthropicRequest(body),
    encodeResponse: encodeAnthropicResponse,
    createStreamEncoder: createAnthropicStreamEncoder,
    errorBody: anthropicErrorBody,
    settingName: anthropicSettingName,
  },
  upstream: {
    protocol: 'anthropic-messages',
    encodeRequest: (req, upstreamModel) => encodeAnthropicRequest(req, upstreamModel),
    decodeResponse: decodeAnthropicResponse,
    createStreamDecoder: createAnthropicStreamDecoder,
    errorMessage: anthropicErrorMessage,
  },
  passthrough: anthropicPassthrough,
};
