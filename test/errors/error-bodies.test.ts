/**
 * One code -> status table (conflict 409, gone 410, client_closed 499 included) and one table per
 * wire shape keyed by the code (shared/error-bodies.ts): an upstream's own status is kept on the
 * error, but the shape's type/status name follows the gateway code.
 */
import { describe, expect, it } from 'vitest';
import { codeForStatus, GatewayError, type GatewayErrorCode } from '../../src/core/errors.js';

const statusOf = (code: GatewayErrorCode): number => new GatewayError(code, 'x').status;
import { anthropicErrorBody, errorBodyFor, geminiErrorBody, openAIErrorObject, statusInShape } from '../../src/protocols/shared/error-bodies.js';
import { upstreamErrorMessage } from '../../src/protocols/shared/upstream-error-message.js';

describe('the code -> status table', () => {
  it('has conflict, gone and client_closed', () => {
    expect([statusOf('conflict'), statusOf('gone'), statusOf('client_closed')]).toEqual([409, 410, 499]);
    expect(new GatewayError('gone', 'expired').status).toBe(410);
    expect([codeForStatus(409), codeForStatus(410), codeForStatus(422), codeForStatus(500), codeForStatus(529)]).toEqual(['conflict', 'gone', 'invalid_request', 'upstream_error', 'unavailable']);
  });
});

describe("Anthropic's 529 in other shapes", () => {
  it('is a 503 for OpenAI and Gemini clients, a 529 for Anthropic ones', () => {
    const overloaded = new GatewayError('unavailable', 'Overloaded', { status: 529 });
    expect([statusInShape('openai', overloaded), statusInShape('gemini', overloaded), statusInShape('anthropic', overloaded)]).toEqual([503, 503, 529]);
    expect(geminiErrorBody(overloaded).error).toEqual({ code: 503, message: 'Overloaded', status: 'UNAVAILABLE' });
    expect(statusInShape('openai', new GatewayError('upstream_error', 'x', { status: 500 }))).toBe(500);
  });
});

describe('error bodies in each shape', () => {
  const conflict = new GatewayError('conflict', 'This Request-Id was already used.', { param: 'Request-Id', detail: 'idempotency_key_reused' });

  it('OpenAI: type by code, the detail as code', () => {
    expect(openAIErrorObject(conflict)).toEqual({ message: 'This Request-Id was already used.', type: 'invalid_request_error', param: 'Request-Id', code: 'idempotency_key_reused' });
    expect(openAIErrorObject(new GatewayError('rate_limited', 'slow down'))).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(openAIErrorObject(new GatewayError('rate_limited', 'no budget', { detail: 'insufficient_quota' }))).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(errorBodyFor('openai', conflict, 't1')).toEqual({ error: openAIErrorObject(conflict), traceId: 't1' });
  });

  it('Anthropic: type by code, also for an upstream status the table does not name', () => {
    expect(anthropicErrorBody(new GatewayError('unavailable', 'busy', { status: 529 }), 't2')).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'busy' }, request_id: 't2', traceId: 't2' });
    expect(anthropicErrorBody(new GatewayError('payload_too_large', 'big'))).toEqual({ type: 'error', error: { type: 'request_too_large', message: 'big' } });
    expect(anthropicErrorBody(new GatewayError(codeForStatus(500), 'boom', { status: 500 }))).toMatchObject({ error: { type: 'api_error' } });
  });

  it('Gemini: the Google status by code (a 500 is INTERNAL, as Google answers it); the HTTP code stays the one answered', () => {
    expect(geminiErrorBody(new GatewayError(codeForStatus(500), 'boom', { status: 500 }), 't3')).toEqual({ error: { code: 500, message: 'boom', status: 'INTERNAL' }, traceId: 't3' });
    expect(geminiErrorBody(new GatewayError(codeForStatus(502), 'bad', { status: 502 })).error.status).toBe('UNAVAILABLE');
    expect(geminiErrorBody(new GatewayError(codeForStatus(503), 'busy', { status: 503 })).error.status).toBe('UNAVAILABLE');
    expect(geminiErrorBody(new GatewayError(codeForStatus(422), 'bad', { status: 422 })).error).toEqual({ code: 422, message: 'bad', status: 'INVALID_ARGUMENT' });
    expect(geminiErrorBody(new GatewayError('client_closed', 'gone away')).error.status).toBe('CANCELLED');
    expect(geminiErrorBody(conflict).error).toEqual({ code: 409, message: 'This Request-Id was already used.', status: 'ABORTED' });
  });

  it('one reader of upstream error bodies, the Gemini array form included', () => {
    expect(upstreamErrorMessage(400, '[{"error":{"code":400,"message":"bad key","status":"INVALID_ARGUMENT"}}]')).toBe('bad key');
    expect(upstreamErrorMessage(429, '{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}')).toBe('slow');
    expect(upstreamErrorMessage(502, '')).toBe('Upstream answered with status 502.');
    expect(upstreamErrorMessage(500, 'null')).toBe('null');
  });
});
