export * from './embeddings-api.js';
export { decodeOpenAIEmbeddingsRequest, validateOpenAIEmbeddingsRequest } from './client/decode-openai-request.js';
export { decodeGeminiEmbedRequests, validateGeminiBatchEmbed, validateGeminiEmbedContent } from './client/decode-gemini-request.js';
export { encodeGeminiEmbedResponse, encodeOpenAIEmbeddingsResponse } from './client/encode-response.js';
export { decodeOpenAIEmbeddingsResponse, encodeOpenAIEmbeddingsRequest } from './upstream/openai-embeddings.js';
export { chunked, decodeGeminiBatchEmbedResponse, encodeGeminiBatchEmbedRequests, geminiModelName } from './upstream/gemini-embeddings.js';
export { vectorFromBase64, vectorToBase64 } from './vector-base64.js';
