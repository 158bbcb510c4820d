import type { ProtocolCodec } from '../types.js';
import { decodeAnthropicRequest } from './decode-request.js';
import { decodeAnthropicResponse } from './decode-response.js';
import { encodeAnthropicRequest } from './encode-request.js';
import { encodeAnthropicResponse } from './encode-response.js';
import { anthropicErrorBody, anthropicErrorMessage } from './errors.js';
import { anthropicPassthrough } from './passthrough.js';
import { anthropicSettingName } from './setting-names.js';
import { createAnthropicStreamDecoder } from './stream-decoder.js';
import { createAnthropicStreamEncoder } from './stream-encoder.js';

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
