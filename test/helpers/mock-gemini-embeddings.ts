/**
 * `:embedContent` and `:batchEmbedContents` of the strict Gemini mock, validating like the real API:
 * only embedding models embed; unknown fields, an empty content, a title without
 * RETRIEVAL_DOCUMENT, an unknown task type, a batch of more than 100 requests or a request naming
 * another model than the URL are refused in Google's error shape. No usage comes back (as from the
 * real API). Vectors are deterministic (mock-embedding-vectors).
 */
import { mockEmbedding } from './mock-embedding-vectors.js';
import { GoogleError, isObj, type Json } from './mock-gemini-validate.js';

export const GEMINI_MOCK_BATCH_LIMIT = 100;

const TASK_TYPES = ['TASK_TYPE_UNSPECIFIED', 'RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY'];
const REQUEST_FIELDS = ['model', 'content', 'taskType', 'title', 'outputDimensionality'];

/** gemini-embedding-001 (3,072 dimensions), text-embedding-004 (768). */
export function isGeminiEmbeddingModel(model: string): boolean {
  return /^(gemini-embedding-|text-embedding-)/.test(model);
}

function defaultDims(model: string): number {
  return model.startsWith('gemini-embedding-') ? 3072 : 768;
}

/** The text of one EmbedContentRequest, checked; `at` names it in messages. */
function embedOne(req: unknown, model: string, at: string): number[] {
  if (!isObj(req)) throw new GoogleError(400, `Invalid JSON payload received. '${at}' must be an object.`);
  for (const k of Object.keys(req)) if (!REQUEST_FIELDS.includes(k)) throw new GoogleError(400, `Invalid JSON payload received. Unknown name "${k}" at '${at}': Cannot find field.`);
  if (req.model !== undefined && req.model !== `models/${model}`) {
    throw new GoogleError(400, `* BatchEmbedContentsRequest.${at}.model: model in the request (${String(req.model)}) does not match the model in the URL (models/${model}).`);
  }
  const content = req.content;
  if (!isObj(content) || !Array.isArray(content.parts) || content.parts.length === 0) throw new GoogleError(400, `* ${at}.content: contents are required.`);
  const texts = content.parts.map((p, i) => {
    if (!isObj(p) || typeof p.text !== 'string') throw new GoogleError(400, `* ${at}.content.parts[${i}]: only text parts are supported by models/${model}.`);
    return p.text;
  });
  if (texts.join('') === '') throw new GoogleError(400, `* ${at}.content: the text is empty.`);
  if (req.taskType !== undefined && !TASK_TYPES.includes(String(req.taskType))) throw new GoogleError(400, `Invalid value at '${at}.task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "${String(req.taskType)}"`);
  if (req.title !== undefined && req.taskType !== 'RETRIEVAL_DOCUMENT') throw new GoogleError(400, `* ${at}: title is only applicable when task_type is RETRIEVAL_DOCUMENT.`);
  let dims = defaultDims(model);
  if (req.outputDimensionality !== undefined) {
    const d = req.outputDimensionality;
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > dims) throw new GoogleError(400, `* ${at}.output_dimensionality: must be from 1 to ${dims}.`);
    dims = d;
  }
  return mockEmbedding(texts.join('\n'), dims, `gemini|${String(req.taskType ?? '')}`);
}

export function answerGeminiEmbed(action: 'embedContent' | 'batchEmbedContents', model: string, body: unknown): Json {
  if (!isGeminiEmbeddingModel(model)) throw new GoogleError(404, `models/${model} is not found for API version v1beta, or is not supported for ${action}. Call ListModels to see the list of available models and their supported methods.`, 'NOT_FOUND');
  if (!isObj(body)) throw new GoogleError(400, 'Invalid JSON payload received. Expected an object.');
  if (action === 'embedContent') return { embedding: { values: embedOne(body, model, 'request') } };
  for (const k of Object.keys(body)) if (k !== 'requests') throw new GoogleError(400, `Invalid JSON payload received. Unknown name "${k}": Cannot find field.`);
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0) throw new GoogleError(400, '* BatchEmbedContentsRequest.requests: requests are required.');
  if (requests.length > GEMINI_MOCK_BATCH_LIMIT) throw new GoogleError(400, `* BatchEmbedContentsRequest.requests: at most ${GEMINI_MOCK_BATCH_LIMIT} requests can be in one batch.`);
  return {
    embeddings: requests.map((r, i) => {
      if (isObj(r) && r.model === undefined) throw new GoogleError(400, `* BatchEmbedContentsRequest.requests[${i}].model: model is required.`);
      return { values: embedOne(r, model, `requests[${i}]`) };
    }),
  };
}
