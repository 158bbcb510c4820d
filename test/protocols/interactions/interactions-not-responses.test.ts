/**
 * An interaction is no response: the Responses routes answer an Interactions id with a 404 (as the
 * Interactions routes answer a response id), so an OpenAI client never gets an interaction's body
 * where its types promise a Response, and a DELETE there cannot remove an interaction. Through the
 * shipped node server with the official openai and @google/genai clients.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { openAIRefusal } from '../../helpers/openai-refusal.js';
import { IX_KEY_A, rawCall, useInteractionsGateway } from '../../helpers/interactions-gateway.js';

const suite = useInteractionsGateway();

function openai(): OpenAI {
  return new OpenAI({ apiKey: IX_KEY_A, baseURL: `${suite.gw.server.url}/v1`, maxRetries: 0 });
}

const refusal = openAIRefusal;

describe('an Interactions id on the Responses routes', () => {
  it('is unknown to retrieve, input_items, stream replay, delete and cancel, and the interaction stays', async () => {
    const ix = await suite.ai.interactions.create({ model: 'mock', input: 'stay an interaction' });
    expect(ix.id).toBeTruthy();
    const client = openai();
    expect((await refusal(client.responses.retrieve(ix.id))).status).toBe(404);
    expect((await refusal(client.responses.inputItems.list(ix.id))).status).toBe(404);
    expect((await refusal(client.responses.delete(ix.id))).status).toBe(404);
    expect((await refusal(client.responses.cancel(ix.id))).status).toBe(404);
    const replay = await rawCall(suite.gw.server.url, 'GET', `/v1/responses/${ix.id}?stream=true`, undefined, null);
    expect(replay.status).toBe(401);
    const replayed = await fetch(`${suite.gw.server.url}/v1/responses/${ix.id}?stream=true`, { headers: { authorization: `Bearer ${IX_KEY_A}` } });
    expect(replayed.status).toBe(404);
    // Still there for its own API.
    expect((await suite.ai.interactions.get(ix.id)).id).toBe(ix.id);
  });

  it('is no previous_response_id nor an item to reference', async () => {
    const ix = await suite.ai.interactions.create({ model: 'mock', input: 'an interaction to continue' });
    const client = openai();
    const continued = await refusal(client.responses.create({ model: 'mock', input: 'go on', previous_response_id: ix.id }));
    expect(continued).toMatchObject({ status: 404, param: 'previous_response_id' });
    const referenced = await refusal(client.responses.create({ model: 'mock', input: [{ type: 'item_reference', id: ix.id }] }));
    expect(referenced).toMatchObject({ status: 400, param: 'input[0]' });
    // A response of the same key still continues as before.
    const first = await client.responses.create({ model: 'mock', input: 'hello' });
    const next = await client.responses.create({ model: 'mock', input: 'again', previous_response_id: first.id });
    expect(next.previous_response_id).toBe(first.id);
  });
});
