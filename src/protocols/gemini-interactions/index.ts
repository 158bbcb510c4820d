/**
 * Gemini's Interactions API. Client side (an Interactions client in front of any vendor): client/
 * decodes requests to IR and encodes interaction objects and event streams. passthrough.ts serves
 * an Interactions client meeting a Gemini upstream; the endpoint builds it per request (the gateway
 * answers with its own interaction id). upstream/ reads Gemini's event stream back into the
 * interaction it describes, for storing. There is no IR -> Interactions upstream codec: Gemini
 * models are reached through generateContent by every other protocol.
 */
import type { ClientCodec } from '../types.js';
import type { CreateInteractionRequest } from './gemini-interactions-api.js';
import { decodeInteractionRequest } from './client/decode-request.js';
import { encodeInteractionResponse } from './client/encode-response.js';
import { interactionsSettingName } from './client/setting-names.js';
import { createInteractionsStreamEncoder } from './client/stream-encoder.js';

export const geminiInteractionsClient: ClientCodec<CreateInteractionRequest> = {
  protocol: 'gemini-interactions',
  // Without stored history or a known target: the endpoint decodes with both (endpoints/interactions-turn.ts).
  decodeRequest: (body, ctx) => decodeInteractionRequest(body, { model: ctx.model, stream: ctx.stream, target: 'openai-chat', ...(ctx.validated ? { validated: ctx.validated } : {}) }).ir,
  encodeResponse: encodeInteractionResponse,
  createStreamEncoder: createInteractionsStreamEncoder,
  settingName: interactionsSettingName,
};
