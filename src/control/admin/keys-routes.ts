/** /admin/v1/keys: the platform keys' lifecycle (the store's keys; config keys listed read-only). */
import { GatewayError } from '../../core/errors.js';
import { quoteInput } from '../../core/quote-input.js';
import type { EndpointContext } from '../../endpoints/services.js';
import type { KeysConfigView } from '../keys/key-service.js';
import { createKeySchema, KEY_STATUS_FILTERS, keyRecordSchema, keyWithSecretSchema, rotateKeySchema, updateKeySchema, type KeyStatus, type KeyStatusFilter } from '../keys/key-wire.js';
import { adminJson, listQuery, readBody, readOptionalBody, type AdminRoute } from './http.js';

export const KEY_LIST_FILTERS = ['search', 'status', 'owner', 'source'] as const;

function viewOf(ctx: EndpointContext): KeysConfigView {
  return { configKeys: ctx.services.config.keys, providerIds: new Set(ctx.services.config.providers.map((p) => p.id)) };
}

function idempotencyKeyOf(ctx: EndpointContext): string | undefined {
  return ctx.request.headers.get('idempotency-key') ?? undefined;
}

function statusFilter(value: string | undefined): KeyStatusFilter | undefined {
  if (value === undefined) return undefined;
  if (!(KEY_STATUS_FILTERS as readonly string[]).includes(value)) {
    throw new GatewayError('invalid_request', `The query parameter 'status' must be one of ${KEY_STATUS_FILTERS.join(', ')}, got '${quoteInput(value, 40)}'.`, { param: 'status' });
  }
  return value as KeyStatusFilter;
}

function sourceFilter(value: string | undefined): 'store' | 'config' | undefined {
  if (value === undefined) return undefined;
  if (value !== 'store' && value !== 'config') throw new GatewayError('invalid_request', `The query parameter 'source' must be store or config, got '${quoteInput(value, 40)}'.`, { param: 'source' });
  return value;
}

export const KEY_ROUTES: readonly AdminRoute[] = [
  {
    method: 'POST',
    doc: { summary: 'Create a platform key; the answer holds its secret, this once.', body: createKeySchema, response: keyWithSecretSchema, status: 201, idempotent: true },
    route: '/keys',
    access: 'write',
    handler: async ({ ctx, control, actor }) => {
      const input = await readBody(ctx, createKeySchema);
      const answer = await control.keys.create(input, actor.id, viewOf(ctx), idempotencyKeyOf(ctx));
      return adminJson(ctx, answer.body, answer.status);
    },
  },
  {
    method: 'GET',
    doc: { summary: 'List platform keys (config keys first, then the store\'s, newest first).', response: keyRecordSchema, list: { filters: KEY_LIST_FILTERS } },
    route: '/keys',
    access: 'read',
    handler: async ({ ctx, control }) => {
      const q = listQuery(ctx.url, KEY_LIST_FILTERS);
      const status = statusFilter(q.filters.status);
      const source = sourceFilter(q.filters.source);
      const page = await control.keys.list(
        {
          limit: q.limit,
          after: q.after,
          ...(q.filters.search ? { search: q.filters.search } : {}),
          ...(status ? { status } : {}),
          ...(q.filters.owner ? { owner: q.filters.owner } : {}),
          ...(source ? { source } : {}),
        },
        viewOf(ctx),
      );
      return adminJson(ctx, page);
    },
  },
  { method: 'GET', route: '/keys/{id}', access: 'read', doc: { summary: 'One key.', response: keyRecordSchema }, handler: async ({ ctx, control }, { id }) => adminJson(ctx, await control.keys.get(id as string, viewOf(ctx))) },
  {
    method: 'PATCH',
    doc: { summary: 'Change a key (the fields given); config keys are read-only (409).', body: updateKeySchema, response: keyRecordSchema },
    route: '/keys/{id}',
    access: 'write',
    handler: async ({ ctx, control, actor }, { id }) => adminJson(ctx, await control.keys.update(id as string, await readBody(ctx, updateKeySchema), actor.id, viewOf(ctx))),
  },
  {
    method: 'DELETE',
    doc: { summary: 'Revoke a key (it stays listed with status revoked).', response: keyRecordSchema },
    route: '/keys/{id}',
    access: 'write',
    handler: async ({ ctx, control, actor }, { id }) => adminJson(ctx, await control.keys.setStatus(id as string, 'revoked', actor.id, viewOf(ctx))),
  },
  {
    method: 'POST',
    doc: { summary: 'A new secret for the same key id; the old one works for gracePeriodSeconds.', body: rotateKeySchema, response: keyWithSecretSchema, idempotent: true },
    route: '/keys/{id}/rotate',
    access: 'write',
    handler: async ({ ctx, control, actor }, { id }) => {
      const { gracePeriodSeconds } = await readOptionalBody(ctx, rotateKeySchema);
      const answer = await control.keys.rotate(id as string, gracePeriodSeconds, actor.id, viewOf(ctx), idempotencyKeyOf(ctx));
      return adminJson(ctx, answer.body, answer.status);
    },
  },
  {
    method: 'POST',
    doc: { summary: 'Disable a key (401 until enabled again).', response: keyRecordSchema },
    route: '/keys/{id}/disable',
    access: 'write',
    handler: async ({ ctx, control, actor }, { id }) => adminJson(ctx, await control.keys.setStatus(id as string, 'disabled', actor.id, viewOf(ctx))),
  },
  {
    method: 'POST',
    doc: { summary: 'Enable a disabled key.', response: keyRecordSchema },
    route: '/keys/{id}/enable',
    access: 'write',
    handler: async ({ ctx, control, actor }, { id }) => adminJson(ctx, await control.keys.setStatus(id as string, 'active', actor.id, viewOf(ctx))),
  },
];
