/** The wire shapes of the ledger and task-center routes, as zod schemas (for the OpenAPI document). */
import { z } from 'zod';

const int = z.number().int();
const intOrNull = int.nullable();

export const ledgerRowSchema = z.object({
  traceId: z.string(),
  requestId: z.string().nullable(),
  time: z.string().describe('ISO 8601 instant the request arrived'),
  keyId: z.string(),
  keyName: z.string().nullable().describe("The key's name (null: no key has this id now)"),
  method: z.string(),
  route: z.string(),
  protocol: z.string().nullable(),
  model: z.string().nullable().describe('The gateway model that served the request (a fallback once the routing moved to one)'),
  requestedModel: z.string().nullable(),
  resolvedModel: z.string().nullable().describe('The model the vendor reported using'),
  provider: z.string().nullable(),
  deployment: z.string().nullable().describe('The upstream model name of the deployment that answered'),
  status: int,
  errorCode: z.string().nullable(),
  attempts: int,
  fallbacks: int,
  inputTokens: intOrNull,
  outputTokens: intOrNull,
  cachedTokens: intOrNull,
  reasoningTokens: intOrNull,
  images: intOrNull,
  videoSeconds: z.number().nullable(),
  costUsd: z.number().nullable(),
  price: z.object({ inputPerMTok: z.number(), outputPerMTok: z.number(), cachedInputPerMTok: z.number().optional(), perVideoSecond: z.number().optional() }).nullable(),
  latencyMs: int,
  ttftMs: intOrNull,
  stream: z.boolean(),
  byok: z.boolean(),
  cacheHit: z.boolean(),
});

export const usageBucketSchema = z.object({
  bucket: z.string().describe('The day (YYYY-MM-DD), key id, model or provider'),
  keyName: z.string().nullable().optional().describe("groupBy=key: the key's name (null: no key has this id now)"),
  requests: int,
  errors: int,
  inputTokens: int,
  outputTokens: int,
  cachedTokens: int,
  reasoningTokens: int,
  images: int,
  videoSeconds: z.number(),
  costUsd: z.number(),
});

export const taskEntrySchema = z.object({
  object: z.literal('task'),
  id: z.string(),
  kind: z.string(),
  keyId: z.string(),
  keyName: z.string().nullable().describe("The key's name (null: no key has this id now)"),
  status: z.string(),
  progress: z.number(),
  model: z.string(),
  provider: z.string(),
  promptSummary: z.string(),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  costUsd: z.number().nullable(),
  /** Why it failed (or was cancelled), null otherwise. */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

export const taskSchema = taskEntrySchema.extend({
  requestId: z.string(),
  prompt: z.string(),
  startedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  outputs: z.array(z.object({ index: int, contentType: z.string(), url: z.string() })),
  settings: z.record(z.string(), z.unknown()),
});
