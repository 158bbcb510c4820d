import type { ProtocolCodec } from '../types.js';
import { decodeOpenAIChatRequest } from './decode-request.js';
import { decodeOpenAIChatResponse } from './decode-response.js';
import { encodeOpenAIChatRequest } from './encode-request.js';
import { encodeOpenAIChatResponse } from './encode-response.js';
import { openAIErrorBody, openAIErrorMessage } from './errors.js';
import { openAIChatPassthrough } from './passthrough.js';
import { openAIChatSettingName } from './setting-names.js';
import { createOpenAIChatStreamDecoder } from './stream-decoder.js';
import { createOpenAIChatStreamEncoder } from './stream-encoder.js';

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
