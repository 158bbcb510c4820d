import type { ClientCodec, ProtocolCodec } from '../types.js';
import type { ChatRequest } from './openai-chat-api.js';
import { decodeOpenAIChatRequest } from './client/decode-request.js';
import { decodeOpenAIChatResponse } from './upstream/decode-response.js';
import { encodeOpenAIChatRequest } from './upstream/encode-request.js';
import { encodeOpenAIChatResponse } from './client/encode-response.js';
import { openAIChatPassthrough } from './passthrough.js';
import { openAIChatSettingName } from './client/setting-names.js';
import { createOpenAIChatStreamDecoder } from './upstream/stream-decoder.js';
import { createOpenAIChatStreamEncoder } from './client/stream-encoder.js';

export const openAIChatClient: ClientCodec<ChatRequest> = {
  protocol: 'openai-chat',
  decodeRequest: (body, ctx) => decodeOpenAIChatRequest(body, ctx.validated),
  encodeResponse: encodeOpenAIChatResponse,
  createStreamEncoder: createOpenAIChatStreamEncoder,
  settingName: openAIChatSettingName,
};

export const openAIChatProtocol: ProtocolCodec = {
  client: openAIChatClient,
  upstream: {
    protocol: 'openai-chat',
    encodeRequest: encodeOpenAIChatRequest,
    decodeResponse: decodeOpenAIChatResponse,
    createStreamDecoder: createOpenAIChatStreamDecoder,
  },
  passthrough: openAIChatPassthrough,
};
