/**
 * A strict mock of the Gemini API's media side on 127.0.0.1 (node:http): image output through
 * POST /v1beta/models/{image-model}:generateContent, Veo through :predictLongRunning + GET
 * /v1beta/{operation} + GET /v1beta/files/{id}:download. Auth as the real API: `x-goog-api-key`
 * or `?key=`; a missing key is 403 PERMISSION_DENIED, a wrong one 400 API_KEY_INVALID. Unknown
 * fields are 400 "Invalid JSON payload received. Unknown name ..."; Vertex-only fields
 * (`generateAudio`, `seed`, imageConfig `personGeneration`, ...) are refused too.
 *
 * Image prompts: "unsafe" -> IMAGE_SAFETY stop without an image; "blocked" -> promptFeedback.
 * Video prompts: "fail" -> operation error; "filtered" -> RAI-filtered result. Operations finish
 * on the second status GET.
 */
import { fakeVideoBytes, PNG_BASE64, startMediaServer, type MockAnswer, type MockVendor, type RecordedRequest } from './mock-media-server.js';

export interface MockMediaGemini extends MockVendor {
  videoBytes(fileId: string): Buffer;
  /** Operation names created, in order. */
  operations: string[];
}

type Json = Record<string, unknown>;

const GEMINI_IMAGE_MODELS = ['gemini-2.5-flash-image', 'gemini-3-pro-image-preview', 'gemini-3.1-flash-image'];
const VEO_MODELS = ['veo-3.0-generate-001', 'veo-3.1-generate-preview', 'veo-2.0-generate-001'];

function gErr(code: number, status: string, message: string, details?: unknown[]): MockAnswer {
  return { status: code, json: { error: { code, message, status, ...(details ? { details } : {}) } } };
}

const unknownName = (name: string, where = '') => gErr(400, 'INVALID_ARGUMENT', `Invalid JSON payload received. Unknown name "${name}"${where ? ` at '${where}'` : ''}: Cannot find field.`);

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Accepts camelCase or snake_case like the real API; returns the camelCase view. */
function pick(o: Json, camel: string): unknown {
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return o[camel] ?? o[snake];
}

function checkKeys(o: Json, allowed: string[], where: string): MockAnswer | undefined {
  const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  for (const k of Object.keys(o)) if (!allowed.includes(k) && !allowed.map(snake).includes(k)) return unknownName(k, where);
  return undefined;
}

interface ImageAsk {
  text: string;
  images: number;
  wantsImage: boolean;
}

function validateGenerate(body: unknown): ImageAsk | MockAnswer {
  if (!isObj(body)) return gErr(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  const bad = checkKeys(body, ['contents', 'systemInstruction', 'generationConfig', 'safetySettings', 'tools', 'toolConfig', 'cachedContent'], '');
  if (bad) return bad;
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) return gErr(400, 'INVALID_ARGUMENT', '* GenerateContentRequest.contents: contents is not specified');
  let text = '';
  let images = 0;
  for (const [ci, c] of contents.entries()) {
    if (!isObj(c)) return gErr(400, 'INVALID_ARGUMENT', `Invalid value at 'contents[${ci}]'`);
    const badC = checkKeys(c, ['role', 'parts'], `contents[${ci}]`);
    if (badC) return badC;
    if (c.role !== undefined && c.role !== 'user' && c.role !== 'model') return gErr(400, 'INVALID_ARGUMENT', `Please use a valid role: user, model.`);
    if (!Array.isArray(c.parts) || c.parts.length === 0) return gErr(400, 'INVALID_ARGUMENT', `* GenerateContentRequest.contents[${ci}].parts: contents.parts must not be empty.`);
    for (const [pi, p] of c.parts.entries()) {
      if (!isObj(p)) return gErr(400, 'INVALID_ARGUMENT', `Invalid value at 'contents[${ci}].parts[${pi}]'`);
      const badP = checkKeys(p, ['text', 'inlineData', 'fileData', 'thought', 'thoughtSignature'], `contents[${ci}].parts[${pi}]`);
      if (badP) return badP;
      const inline = pick(p, 'inlineData');
      const file = pick(p, 'fileData');
      if (typeof p.text === 'string') text += p.text;
      else if (isObj(inline)) {
        const mime = pick(inline, 'mimeType');
        const data = inline.data;
        if (typeof mime !== 'string' || !mime) return gErr(400, 'INVALID_ARGUMENT', `* GenerateContentRequest.contents[${ci}].parts[${pi}].inline_data.mime_type: mime_type is required`);
        if (typeof data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 !== 0) {
          return gErr(400, 'INVALID_ARGUMENT', `Invalid value at 'contents[${ci}].parts[${pi}].inline_data.data' (TYPE_BYTES), Base64 decoding failed`);
        }
        if (mime.startsWith('image/')) images++;
      } else if (isObj(file)) {
        if (typeof pick(file, 'fileUri') !== 'string') return gErr(400, 'INVALID_ARGUMENT', 'file_data.file_uri is required');
        images++;
      } else return gErr(400, 'INVALID_ARGUMENT', `* GenerateContentRequest.contents[${ci}].parts[${pi}].data: required oneof field 'data' must have one initialized field`);
    }
  }
  const gc = pick(body, 'generationConfig');
  let wantsImage = true;
  if (gc !== undefined) {
    if (!isObj(gc)) return gErr(400, 'INVALID_ARGUMENT', "Invalid value at 'generation_config'");
    const badG = checkKeys(gc, ['temperature', 'topP', 'topK', 'candidateCount', 'maxOutputTokens', 'stopSequences', 'seed', 'responseModalities', 'imageConfig', 'thinkingConfig', 'responseMimeType'], 'generation_config');
    if (badG) return badG;
    const mods = pick(gc, 'responseModalities');
    if (mods !== undefined) {
      if (!Array.isArray(mods) || mods.some((m) => !['TEXT', 'IMAGE', 'AUDIO'].includes(String(m)))) return gErr(400, 'INVALID_ARGUMENT', "Invalid value at 'generation_config.response_modalities'");
      wantsImage = mods.includes('IMAGE');
    }
    const ic = pick(gc, 'imageConfig');
    if (ic !== undefined) {
      if (!isObj(ic)) return gErr(400, 'INVALID_ARGUMENT', "Invalid value at 'generation_config.image_config'");
      const badI = checkKeys(ic, ['aspectRatio', 'imageSize'], 'generation_config.image_config');
      if (badI) return badI;
      const ar = pick(ic, 'aspectRatio');
      if (ar !== undefined && !['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'].includes(String(ar))) return gErr(400, 'INVALID_ARGUMENT', `Unsupported aspect ratio: ${String(ar)}`);
      const sz = pick(ic, 'imageSize');
      if (sz !== undefined && !['1K', '2K', '4K'].includes(String(sz))) return gErr(400, 'INVALID_ARGUMENT', `Unsupported image size: ${String(sz)}`);
    }
  }
  return { text, images, wantsImage };
}

function imageAnswer(ask: ImageAsk, model: string): MockAnswer {
  const promptTokens = 10 + 258 * ask.images;
  const usage = (imageTokens: number, textTokens: number) => ({
    promptTokenCount: promptTokens,
    candidatesTokenCount: imageTokens + textTokens,
    totalTokenCount: promptTokens + imageTokens + textTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: 10 }, ...(ask.images ? [{ modality: 'IMAGE', tokenCount: 258 * ask.images }] : [])],
    candidatesTokensDetails: [...(imageTokens ? [{ modality: 'IMAGE', tokenCount: imageTokens }] : []), { modality: 'TEXT', tokenCount: textTokens }],
  });
  if (ask.text.includes('blocked')) {
    return { status: 200, json: { promptFeedback: { blockReason: 'SAFETY', safetyRatings: [] }, usageMetadata: { promptTokenCount: promptTokens, totalTokenCount: promptTokens }, modelVersion: model, responseId: 'resp-blocked' } };
  }
  if (ask.text.includes('unsafe')) {
    return { status: 200, json: { candidates: [{ content: { role: 'model', parts: [{ text: 'I cannot make that image.' }] }, finishReason: 'IMAGE_SAFETY', index: 0 }], usageMetadata: usage(0, 6), modelVersion: model, responseId: 'resp-unsafe' } };
  }
  const said = ask.images > 0 ? `[gemini] edited ${ask.images} image(s)` : '[gemini] here is your image';
  const parts: Json[] = [{ text: said }];
  if (ask.wantsImage) parts.push({ inlineData: { mimeType: 'image/png', data: PNG_BASE64 } });
  return { status: 200, json: { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: usage(ask.wantsImage ? 1290 : 0, 10), modelVersion: model, responseId: 'resp-image' } };
}

interface Operation {
  name: string;
  model: string;
  prompt: string;
  polls: number;
  fileId: string;
}

function validatePredict(body: unknown, model: string): { prompt: string } | MockAnswer {
  if (!isObj(body)) return gErr(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
  const bad = checkKeys(body, ['instances', 'parameters'], '');
  if (bad) return bad;
  if (!Array.isArray(body.instances) || body.instances.length !== 1 || !isObj(body.instances[0])) return gErr(400, 'INVALID_ARGUMENT', 'instances must hold exactly one instance.');
  const inst = body.instances[0];
  const badI = checkKeys(inst, ['prompt', 'image', 'lastFrame', 'referenceImages', 'video'], 'instances[0]');
  if (badI) return badI;
  if (typeof inst.prompt !== 'string' || !inst.prompt) return gErr(400, 'INVALID_ARGUMENT', 'A prompt is required.');
  const params = body.parameters;
  if (params !== undefined) {
    if (!isObj(params)) return gErr(400, 'INVALID_ARGUMENT', "Invalid value at 'parameters'");
    for (const vertexOnly of ['generateAudio', 'seed', 'fps', 'outputGcsUri', 'storageUri', 'pubsubTopic', 'compressionQuality']) {
      if (params[vertexOnly] !== undefined) return gErr(400, 'INVALID_ARGUMENT', `\`${vertexOnly}\` isn't supported by this model. Please remove it or refer to the Gemini API documentation for supported usage.`);
    }
    const badP = checkKeys(params, ['aspectRatio', 'resolution', 'durationSeconds', 'negativePrompt', 'personGeneration', 'sampleCount', 'enhancePrompt', 'numberOfVideos'], 'parameters');
    if (badP) return badP;
    const veo2 = model.startsWith('veo-2');
    if (params.aspectRatio !== undefined && !['16:9', '9:16'].includes(String(params.aspectRatio))) return gErr(400, 'INVALID_ARGUMENT', `Aspect ratio ${String(params.aspectRatio)} is not supported.`);
    if (params.resolution !== undefined && !(veo2 ? ['720p'] : ['720p', '1080p']).includes(String(params.resolution))) return gErr(400, 'INVALID_ARGUMENT', `Resolution ${String(params.resolution)} is not supported.`);
    if (params.durationSeconds !== undefined) {
      if (typeof params.durationSeconds !== 'number') return gErr(400, 'INVALID_ARGUMENT', "Invalid value at 'parameters.duration_seconds' (TYPE_INT32)");
      if (!(veo2 ? [5, 6, 7, 8] : [4, 6, 8]).includes(params.durationSeconds)) return gErr(400, 'INVALID_ARGUMENT', `The duration ${params.durationSeconds}s is out of bounds.`);
    }
    if (params.personGeneration !== undefined && !['allow_all', 'allow_adult', 'dont_allow'].includes(String(params.personGeneration))) return gErr(400, 'INVALID_ARGUMENT', 'Unsupported personGeneration.');
    if (params.sampleCount !== undefined && (typeof params.sampleCount !== 'number' || params.sampleCount < 1 || params.sampleCount > 4)) return gErr(400, 'INVALID_ARGUMENT', 'sampleCount must be 1-4.');
  }
  return { prompt: inst.prompt };
}

function operationBody(op: Operation, origin: string): Json {
  if (op.polls < 2) return { name: op.name, done: false, metadata: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningMetadata' } };
  if (op.prompt.includes('fail')) return { name: op.name, done: true, error: { code: 13, message: 'Video generation failed: the model ran into an internal error.', status: 'INTERNAL' } };
  const type = 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse';
  if (op.prompt.includes('filtered')) {
    return { name: op.name, done: true, response: { '@type': type, generateVideoResponse: { raiMediaFilteredCount: 1, raiMediaFilteredReasons: ['The video could not be generated because it may violate the usage guidelines.'] } } };
  }
  return { name: op.name, done: true, response: { '@type': type, generateVideoResponse: { generatedSamples: [{ video: { uri: `${origin}/v1beta/files/${op.fileId}:download?alt=media` } }] } } };
}

export async function startMockMediaGemini(opts: { apiKey?: string } = {}): Promise<MockMediaGemini> {
  const apiKey = opts.apiKey ?? 'upstream-secret-gemini-0123456789';
  const ops = new Map<string, Operation>();
  const operations: string[] = [];
  let counter = 0;

  const vendor = await startMediaServer(apiKey, '', (req: RecordedRequest, _raw, origin) => {
    const given = req.headers['x-goog-api-key'] ?? req.query.get('key');
    if (given === undefined || given === null) return gErr(403, 'PERMISSION_DENIED', 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.');
    if (given !== apiKey) return gErr(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }]);
    const p = req.path;
    const action = /^\/v1beta\/models\/([^/:]+):(generateContent|predictLongRunning)$/.exec(p);
    if (action && req.method === 'POST') {
      const model = decodeURIComponent(action[1] ?? '');
      if (action[2] === 'generateContent') {
        if (!GEMINI_IMAGE_MODELS.includes(model)) return gErr(404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for generateContent.`);
        const ask = validateGenerate(req.body);
        return 'status' in ask ? ask : imageAnswer(ask, model);
      }
      if (!VEO_MODELS.includes(model)) return gErr(404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for predictLongRunning.`);
      const v = validatePredict(req.body, model);
      if ('status' in v) return v;
      counter++;
      const op: Operation = { name: `models/${model}/operations/op${counter}xyz`, model, prompt: v.prompt, polls: 0, fileId: `file${counter}abc` };
      ops.set(op.name, op);
      operations.push(op.name);
      return { status: 200, json: { name: op.name } };
    }
    const opMatch = /^\/v1beta\/(models\/[^/]+\/operations\/[^/]+)$/.exec(p);
    if (opMatch && req.method === 'GET') {
      const op = ops.get(opMatch[1] ?? '');
      if (!op) return gErr(404, 'NOT_FOUND', `Operation ${opMatch[1]} not found.`);
      if (op.polls < 2) op.polls++;
      return { status: 200, json: operationBody(op, origin) };
    }
    const file = /^\/v1beta\/files\/([^/:]+):download$/.exec(p);
    if (file && req.method === 'GET') {
      if (req.query.get('alt') !== 'media') return gErr(400, 'INVALID_ARGUMENT', 'alt=media is required to download.');
      const known = [...ops.values()].some((o) => o.fileId === file[1] && o.polls >= 2);
      if (!known) return gErr(404, 'NOT_FOUND', `File ${file[1]} not found.`);
      return { status: 200, headers: { 'content-type': 'video/mp4' }, bytes: fakeVideoBytes(file[1] ?? '') };
    }
    return gErr(404, 'NOT_FOUND', `Unknown path ${req.method} ${p}`);
  });
  return Object.assign(vendor, { operations, videoBytes: (fileId: string) => fakeVideoBytes(fileId) });
}
