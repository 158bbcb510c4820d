/**
 * POST /v1/embeddings of the strict OpenAI mock, validating like the real API: a model that is not
 * an embeddings model, an empty or missing input, more than 2,048 inputs, an unknown
 * `encoding_format`, `dimensions` on a model that cannot shorten its vectors and unrecognized
 * arguments are refused in OpenAI's error shape. Vectors are deterministic (mock-embedding-vectors).
 */
import { float32Base64, mockEmbedding } from './mock-embedding-vectors.js';

type Json = Record<string, unknown>;

export interface EmbeddingsAnswer {
  status: number;
  body: Json;
}

const KNOWN = new Set(['model', 'input', 'encoding_format', 'dimensions', 'user']);
/** Default vector sizes of OpenAI's embedding models. */
const DIMS: Record<string, number> = { 'text-embedding-3-small': 1536, 'text-embedding-3-large': 3072, 'text-embedding-ada-002': 1536 };

function invalid(message: string, param: string | null = null, code: string | null = null): EmbeddingsAnswer {
  return { status: 400, body: { error: { message, type: 'invalid_request_error', param, code } } };
}

const isTokens = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((n) => Number.isInteger(n) && n >= 0);

export function answerEmbeddings(body: unknown): EmbeddingsAnswer {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalid('The request body must be a JSON object.');
  const b = body as Json;
  for (const k of Object.keys(b)) if (!KNOWN.has(k)) return invalid(`Unrecognized request argument supplied: ${k}`);
  if (typeof b.model !== 'string' || !b.model) return invalid('you must provide a model parameter', 'model');
  if (!/embed/.test(b.model)) return { status: 404, body: { error: { message: `The model \`${b.model}\` does not exist or you do not have access to it, or it does not support embeddings.`, type: 'invalid_request_error', param: 'model', code: 'model_not_found' } } };
  const input = b.input;
  let items: Array<string | number[]>;
  if (typeof input === 'string') items = [input];
  else if (isTokens(input)) items = [input];
  else if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'string' || isTokens(x))) items = input as Array<string | number[]>;
  else return invalid("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'input');
  if (items.length > 2048) return invalid(`'$.input' is invalid: at most 2048 inputs, got ${items.length}.`, 'input');
  if (items.some((x) => x === '')) return invalid("'$.input' is invalid: an input cannot be an empty string.", 'input');
  const format = b.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') return invalid(`Invalid value for 'encoding_format': '${String(format)}'. Supported values are: 'float' and 'base64'.`, 'encoding_format', 'invalid_value');
  let dims = DIMS[b.model] ?? 1536;
  if (b.dimensions !== undefined) {
    if (!b.model.startsWith('text-embedding-3')) return invalid('This model does not support specifying dimensions.', 'dimensions');
    if (!Number.isInteger(b.dimensions) || (b.dimensions as number) < 1 || (b.dimensions as number) > dims) return invalid(`Invalid value for 'dimensions': must be an integer from 1 to ${dims}.`, 'dimensions');
    dims = b.dimensions as number;
  }
  const texts = items.map((x) => (typeof x === 'string' ? x : `tokens:${x.join(',')}`));
  const tokens = items.reduce<number>((n, x) => n + (typeof x === 'string' ? x.split(/\s+/).filter(Boolean).length : x.length), 0);
  return {
    status: 200,
    body: {
      object: 'list',
      data: texts.map((t, index) => {
        const v = mockEmbedding(t, dims, 'openai');
        return { object: 'embedding', index, embedding: format === 'base64' ? float32Base64(v) : v };
      }),
      model: b.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}
