import type { ClientCodec, ProtocolCodec } from '../types.js';
import type { GenerateContentRequest } from './gemini-api.js';
import { decodeGeminiRequest } from './client/decode-request.js';
import { decodeGeminiResponse } from './upstream/decode-response.js';
import { encodeGeminiRequest } from './upstream/encode-request.js';
import { encodeGeminiResponse } from './client/encode-response.js';
import { geminiPassthrough } from './passthrough.js';
import { geminiSettingName } from './client/setting-names.js';
import { createGeminiStreamDecoder } from './upstream/stream-decoder.js';
import { createGeminiStreamEncoder } from './client/stream-encoder.js';

export const geminiClient: ClientCodec<GenerateContentRequest> = {
  protocol: 'gemini',
  decodeRequest: decodeGeminiRequest,
  encodeResponse: encodeGeminiResponse,
  createStreamEncoder: createGeminiStreamEncoder,
  settingName: geminiSettingName,
};

/** Gemini generateContent: `@google/genai`, Gemini CLI, google-genai (Python) and the REST API. */
export const geminiProtocol: ProtocolCodec = {
  client: geminiClient,
  upstream: {
    protocol: 'gemini',
    encodeRequest: encodeGeminiRequest,
    decodeResponse: decodeGeminiResponse,
    createStreamDecoder: createGeminiStreamDecoder,
    searchReportedAfterText: true,
  },
  passthrough: geminiPassthrough,
};
