import type { ProtocolCodec } from '../types.js';
import { decodeGeminiRequest } from './decode-request.js';
import { decodeGeminiResponse } from './decode-response.js';
import { encodeGeminiRequest } from './encode-request.js';
import { encodeGeminiResponse } from './encode-response.js';
import { geminiErrorBody, geminiErrorMessage } from './errors.js';
import { geminiPassthrough } from './passthrough.js';
import { geminiSettingName } from './setting-names.js';
import { createGeminiStreamDecoder } from './stream-decoder.js';
import { createGeminiStreamEncoder } from './stream-encoder.js';

/** Gemini generateContent: `@google/genai`, Gemini CLI, google-genai (Python) and the REST API. */
export const geminiProtocol: ProtocolCodec = {
  client: {
    protocol: 'gemini',
    decodeRequest: decodeGeminiRequest,
    encodeResponse: encodeGeminiResponse,
    createStreamEncoder: createGeminiStreamEncoder,
    errorBody: geminiErrorBody,
    settingName: geminiSettingName,
  },
  upstream: {
    protocol: 'gemini',
    encodeRequest: encodeGeminiRequest,
    decodeResponse: decodeGeminiResponse,
    createStreamDecoder: createGeminiStreamDecoder,
    errorMessage: geminiErrorMessage,
  },
  passthrough: geminiPassthrough,
};
