import type { ProtocolCodec } from '../types.js';
import { decodeOpenAIChatRequest } from './client/decode-request.js';
import { decodeOpenAIChatResponse } from './upstream/decode-response.js';
import { encodeOpenAIChatRequest } from './upstream/encode-request.js';
import { encodeOpenAIChatResponse } from './client/encode-response.js';
import { openAIErrorBody, openAIErrorMessage } from './errors.js';
import { openAIChatPassthrough } from './passthrough.js';
import { openAIChatSettingName } from './client/setting-names.js';
import { createOpenAIChatStreamDecoder } from './upstream/stream-decoder.js';
import { createOpenAIChatStreamEncoder } from './client/stream-encoder.js';

export const openAIChatProtocol: ProtocolCodec = {
  client: {
    protocol: 'openai-chat',
    decodeRequest: (body) => decodeOpenAIChatRequest(body),
    encodeResponse: encodeOpenAIChatResponse,
    createStreamEncoder: createOpenAIChatStreamEncoder,
    errorBody: openAIErrorBody,
    settingName: openAIChatSettingName,
  },
  upstream: {
    protocol: 'openai-chat',
    encodeRequest: encodeOpenAIChatRequest,
    decodeResponse: decodeOpenAIChatResponse,
    createStreamDecoder: createOpenAIChatStreamDecoder,
    errorMessage: openAIErrorMessage,
  },
  passthrough: openAIChatPassthrough,
};
