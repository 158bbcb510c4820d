/**
 * Google's Agent Development Kit (`@google/adk` with `useInteractionsApi`) declares function
 * parameters in Gemini's OpenAPI dialect (`"type": "STRING"`, `nullable`, `format: "enum"`, int64
 * limits as strings, `propertyOrdering`). On OpenAI and Anthropic models the gateway must send
 * valid JSON Schema, at every depth (properties, items, anyOf); the strict mocks refuse Gemini's
 * types the way the real vendors do. Driven by the official @google/genai `interactions` client.
 */
import { describe, expect, it } from 'vitest';
import { jsonSchemaProblem } from '../../helpers/json-schema-check.js';
import { useInteractionsGateway } from '../../helpers/interactions-gateway.js';

type Json = Record<string, unknown>;

const ix = useInteractionsGateway();

/** A tool as the ADK declares it (FunctionDeclaration.parameters: genai `Schema` with `Type` values). */
const ADK_TOOL = {
  type: 'function' as const,
  name: 'find_flights',
  description: 'Finds flights between two airports.',
  parameters: {
    type: 'OBJECT',
    properties: {
      origin: { type: 'STRING', description: 'IATA code of the departure airport' },
      destination: { type: 'STRING', description: 'IATA code of the arrival airport' },
      cabin: { type: 'STRING', format: 'enum', enum: ['economy', 'business'], nullable: true },
      passengers: { type: 'INTEGER', minimum: 1, example: 2 },
      stops: { type: 'INTEGER', format: 'enum', enum: ['0', '1'] },
      dates: { type: 'ARRAY', items: { type: 'STRING', format: 'date' }, minItems: '1', maxItems: '3' },
      budget: {
        type: 'OBJECT',
        properties: { amount: { type: 'NUMBER' }, currency: { type: 'STRING', maxLength: '3' } },
        required: ['amount'],
        propertyOrdering: ['amount', 'currency'],
      },
      flexible: { anyOf: [{ type: 'BOOLEAN' }, { type: 'STRING' }] },
      notes: { type: 'TYPE_UNSPECIFIED', description: 'anything else' },
    },
    required: ['origin', 'destination'],
    propertyOrdering: ['origin', 'destination', 'cabin', 'passengers', 'stops', 'dates', 'budget', 'flexible', 'notes'],
  },
};

/** The same parameters as JSON Schema. */
const AS_JSON_SCHEMA = {
  type: 'object',
  properties: {
    origin: { type: 'string', description: 'IATA code of the departure airport' },
    destination: { type: 'string', description: 'IATA code of the arrival airport' },
    cabin: { type: ['string', 'null'], enum: ['economy', 'business', null] },
    passengers: { type: 'integer', minimum: 1, examples: [2] },
    stops: { type: 'integer', enum: [0, 1] },
    dates: { type: 'array', items: { type: 'string', format: 'date' }, minItems: 1, maxItems: 3 },
    budget: { type: 'object', properties: { amount: { type: 'number' }, currency: { type: 'string', maxLength: 3 } }, required: ['amount'] },
    flexible: { anyOf: [{ type: 'boolean' }, { type: 'string' }] },
    notes: { description: 'anything else' },
  },
  required: ['origin', 'destination'],
};

const lastBody = (m: { requests: Array<{ body: unknown }> }): Json => m.requests.at(-1)?.body as Json;

describe('the strict mocks refuse Gemini schema types like the real vendors', () => {
  it('the schema as the ADK sends it is not JSON Schema; the converted one is', () => {
    expect(jsonSchemaProblem(ADK_TOOL.parameters)).toMatchObject({ context: "('properties', 'origin')", value: 'STRING' });
    expect(jsonSchemaProblem({ type: 'object', properties: { city: { type: 'STRING' } } })).toMatchObject({ context: "('properties', 'city')", value: 'STRING' });
    expect(jsonSchemaProblem(AS_JSON_SCHEMA)).toBeUndefined();
  });

  it('OpenAI chat, OpenAI Responses and Anthropic answer 400 for a tool with "type": "STRING"', async () => {
    const params = { type: 'object', properties: { city: { type: 'STRING' } } };
    const chat = await fetch(`${ix.mocks.openai.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ix.mocks.openai.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'f', parameters: params } }] }),
    });
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { error: Json }).error).toMatchObject({
      message: "Invalid schema for function 'f': In context=('properties', 'city'), \"STRING\" is not valid under any of the given schemas.",
      param: 'tools[0].function.parameters',
      code: 'invalid_function_parameters',
    });
    const responses = await fetch(`${ix.mocks.responses.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ix.mocks.responses.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5', input: 'x', tools: [{ type: 'function', name: 'f', parameters: params }] }),
    });
    expect(responses.status).toBe(400);
    expect(((await responses.json()) as { error: Json }).error).toMatchObject({ param: 'tools[0].parameters', code: 'invalid_function_parameters' });
    const anthropic = await fetch(`${ix.mocks.anthropic.baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': ix.mocks.anthropic.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], tools: [{ name: 'f', input_schema: params }] }),
    });
    expect(anthropic.status).toBe(400);
    expect(((await anthropic.json()) as { error: Json }).error.message).toMatch(/^tools\.0\.custom\.input_schema: JSON schema is invalid/);
  });
});

describe('Interactions with an ADK tool declaration on other vendors', () => {
  it('OpenAI (Chat Completions): the parameters arrive as JSON Schema and the model calls the tool', async () => {
    const res = await ix.ai.interactions.create({ model: 'gpt', input: 'Flights from CDG to JFK?', tools: [ADK_TOOL] });
    expect(res.status).toBe('requires_action');
    expect(res.steps?.find((s) => s.type === 'function_call')).toMatchObject({ name: 'find_flights' });
    const tools = lastBody(ix.mocks.openai).tools as Json[];
    expect(tools).toEqual([{ type: 'function', function: { name: 'find_flights', description: 'Finds flights between two airports.', parameters: AS_JSON_SCHEMA } }]);
  });

  it('OpenAI (Responses API): the same, streamed', async () => {
    const stream = await ix.ai.interactions.create({ model: 'gpt-pro', input: 'Flights from CDG to JFK?', tools: [ADK_TOOL], stream: true });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.event_type);
    expect(types.at(-1)).toBe('interaction.completed');
    expect(types).not.toContain('error');
    expect((lastBody(ix.mocks.responses).tools as Json[])[0]).toMatchObject({ type: 'function', name: 'find_flights', parameters: AS_JSON_SCHEMA });
  });

  it('Anthropic: input_schema is JSON Schema', async () => {
    const res = await ix.ai.interactions.create({ model: 'claude', input: 'Flights from CDG to JFK?', tools: [ADK_TOOL] });
    expect(res.status).toBe('requires_action');
    expect((lastBody(ix.mocks.anthropic).tools as Json[])[0]).toEqual({ name: 'find_flights', description: 'Finds flights between two airports.', input_schema: AS_JSON_SCHEMA });
  });

  it('a Gemini-dialect response_format schema reaches another vendor as JSON Schema', async () => {
    const res = await ix.ai.interactions.create({
      model: 'gpt',
      input: 'A city as JSON',
      response_format: { type: 'text', mime_type: 'application/json', schema: { type: 'OBJECT', properties: { name: { type: 'STRING' }, size: { type: 'INTEGER', nullable: true } }, required: ['name'] } },
    });
    expect(res.status).toBe('completed');
    const format = (lastBody(ix.mocks.openai).response_format as { json_schema: { schema: Json } }).json_schema.schema;
    expect(format).toEqual({ type: 'object', properties: { name: { type: 'string' }, size: { type: ['integer', 'null'] } }, required: ['name'] });
  });

  it('Gemini itself gets the declaration as the client sent it (pass-through)', async () => {
    await ix.ai.interactions.create({ model: 'gemini', input: 'Flights from CDG to JFK?', tools: [ADK_TOOL] });
    const sent = lastBody(ix.mocks.gemini) as Json;
    expect((sent.tools as Json[])[0]).toEqual(ADK_TOOL);
  });
});
