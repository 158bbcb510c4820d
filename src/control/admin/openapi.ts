/** The OpenAPI 3.1 document of the admin API, generated from the routes' zod schemas (zod 4's toJSONSchema). */
import { z } from 'zod';
import { ADMIN_PREFIX, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type AdminRoute } from './http.js';

const errorSchema = z.object({
  error: z.object({ type: z.string(), code: z.string().nullable(), message: z.string(), param: z.string().nullable() }),
  /** The request's trace id, as in its x-trace-id header (every gateway error body has it). */
  traceId: z.string(),
});

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

function parameter(name: string, where: 'query' | 'path', schema: Record<string, unknown> = { type: 'string' }, required = false): Record<string, unknown> {
  return { name, in: where, required: where === 'path' || required, schema };
}

export function openApiDocument(routes: readonly AdminRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const doc = r.doc;
    const params: Array<Record<string, unknown>> = [];
    for (const m of r.route.matchAll(/\{(\w+)\}/g)) params.push(parameter(m[1] as string, 'path'));
    if (doc.list) {
      params.push(parameter('limit', 'query', { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }));
      params.push(parameter('after', 'query', { type: 'string', description: 'The nextCursor of the previous page.' }));
      for (const f of doc.list.filters) params.push(parameter(f, 'query'));
    }
    for (const q of doc.query ?? []) params.push(parameter(q, 'query'));
    if (doc.idempotent) params.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 }, description: 'A retry with the same key gets the first answer again (24 hours).' });
    let response: Record<string, unknown> | undefined;
    if (doc.response) {
      const item = jsonSchema(doc.response, 'output');
      response = doc.list
        ? { type: 'object', properties: { object: { const: 'list' }, data: { type: 'array', items: item }, hasMore: { type: 'boolean' }, nextCursor: { type: ['string', 'null'] } }, required: ['object', 'data', 'hasMore', 'nextCursor'] }
        : item;
    }
    const content = doc.contentType ? { [doc.contentType]: { schema: { type: 'string' } } } : response ? { 'application/json': { schema: response } } : undefined;
    const errors = { description: 'Error', content: { 'application/json': { schema: jsonSchema(errorSchema, 'output') } } };
    const op: Record<string, unknown> = {
      summary: doc.summary,
      operationId: `${r.method.toLowerCase()}${r.route.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      ...(params.length ? { parameters: params } : {}),
      ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(doc.body, 'input') } } } } : {}),
      responses: {
        [String(doc.status ?? 200)]: { description: 'OK', ...(content ? { content } : {}) },
        '400': errors,
        '401': errors,
        '403': errors,
        ...(params.some((p) => p.in === 'path') ? { '404': errors } : {}),
        ...(r.access === 'write' ? { '409': errors } : {}),
      },
      'x-access': r.access,
      ...(r.access === 'public' ? { security: [] } : {}),
    };
    (paths[ADMIN_PREFIX + r.route] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'modelgate admin API', version: '1' },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        adminKey: { type: 'http', scheme: 'bearer', description: 'An admin key (config admin.keys or MODELGATE_ADMIN_KEY).' },
        consoleSession: { type: 'apiKey', in: 'cookie', name: 'modelgate_session', description: 'The console session from POST /admin/v1/session; changes also need its CSRF token in X-CSRF-Token.' },
      },
    },
    security: [{ adminKey: [] }, { consoleSession: [] }],
    paths,
  };
}
