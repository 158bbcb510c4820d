/**
 * A strict mock of OpenAI's media APIs on 127.0.0.1 (node:http): POST /v1/images/generations,
 * POST /v1/images/edits (multipart `image` / `image[]`, or JSON `images`), POST /v1/videos,
 * GET /v1/videos/{id}, GET /v1/videos/{id}/content, DELETE /v1/videos/{id}. It refuses what the
 * real API refuses (images.md, video.md): `response_format` on GPT image models, duplicate
 * `image` parts, unknown parameters, sizes/qualities the model lacks, numeric `seconds`, ...
 *
 * Video jobs advance one step per status GET: in_progress 40 -> in_progress 80 -> completed (or
 * failed when the prompt contains "fail").
 */
import { fakeVideoBytes, parseMultipart, PNG_BASE64, startMediaServer, type MockAnswer, type MockVendor, type MultipartBody, type RecordedRequest } from './mock-media-server.js';


export interface MockMediaOpenAI extends MockVendor {
  /** The bytes GET /v1/videos/{id}/content serves. */
  videoBytes(id: string): Buffer;
  /** Ids of the video jobs created, in order. */
  videoIds: string[];
}

type Json = Record<string, unknown>;

const GPT_IMAGE = ['gpt-image-1', 'gpt-image-1-mini', 'gpt-image-1.5', 'gpt-image-2', 'chatgpt-image-latest'];
const IMAGE_MODELS = [...GPT_IMAGE, 'dall-e-2', 'dall-e-3'];
const GEN_PARAMS = ['prompt', 'model', 'n', 'size', 'quality', 'response_format', 'output_format', 'output_compression', 'background', 'moderation', 'stream', 'partial_images', 'style', 'user'];
const EDIT_PARAMS = ['prompt', 'model', 'n', 'size', 'quality', 'response_format', 'output_format', 'output_compression', 'background', 'stream', 'partial_images', 'user', 'input_fidelity', 'image', 'image[]', 'mask', 'images'];
const GPT_ONLY = ['output_format', 'output_compression', 'background', 'moderation', 'stream', 'partial_images', 'input_fidelity'];
const VIDEO_MODELS = ['sora-2', 'sora-2-pro', 'sora-2-2025-10-06', 'sora-2-pro-2025-10-06'];

function err(status: number, message: string, param: string | null, code: string | null, type = 'invalid_request_error'): MockAnswer {
  return { status, json: { error: { message, type, param, code } } };
}

const unknownParam = (p: string) => err(400, `Unknown parameter: '${p}'.`, p, 'unknown_parameter');

function checkImageOptions(o: Json, model: string, edit: boolean): MockAnswer | undefined {
  const gpt = GPT_IMAGE.includes(model);
  if (gpt && o.response_format !== undefined) return unknownParam('response_format');
  if (!gpt) for (const p of GPT_ONLY) if (o[p] !== undefined) return unknownParam(p);
  if (typeof o.prompt !== 'string' || o.prompt.length === 0) return err(400, "Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter');
  const n = o.n === undefined ? 1 : Number(o.n);
  if (!Number.isInteger(n) || n < 1 || n > 10) return err(400, `Invalid value for 'n': expected an integer from 1 to 10.`, 'n', 'invalid_value');
  if (model === 'dall-e-3' && n !== 1) return err(400, "Invalid value for 'n': dall-e-3 only supports n=1.", 'n', 'invalid_value');
  const size = o.size;
  if (size !== undefined) {
    const sizes = model === 'dall-e-2' ? ['256x256', '512x512', '1024x1024'] : model === 'dall-e-3' ? ['1024x1024', '1792x1024', '1024x1792'] : ['auto', '1024x1024', '1536x1024', '1024x1536', ...(edit ? ['256x256', '512x512'] : [])];
    if (typeof size !== 'string' || !sizes.includes(size)) return err(400, `Invalid value for 'size': '${String(size)}'. Supported values are: ${sizes.join(', ')}.`, 'size', 'invalid_value');
  }
  const q = o.quality;
  if (q !== undefined) {
    const qs = gpt ? ['low', 'medium', 'high', 'auto'] : model === 'dall-e-3' ? ['standard', 'hd'] : ['standard'];
    if (!qs.includes(String(q))) return err(400, `Invalid value for 'quality': '${String(q)}'.`, 'quality', 'invalid_value');
  }
  if (o.response_format !== undefined && !['url', 'b64_json'].includes(String(o.response_format))) return err(400, "Invalid value for 'response_format'.", 'response_format', 'invalid_value');
  if (o.output_format !== undefined && !['png', 'jpeg', 'webp'].includes(String(o.output_format))) return err(400, "Invalid value for 'output_format'.", 'output_format', 'invalid_value');
  if (o.background === 'transparent' && o.output_format === 'jpeg') return err(400, 'Transparent background requires png or webp output.', 'background', 'invalid_value');
  return undefined;
}

function imagesAnswer(o: Json, model: string, origin: string, imagesIn: number): MockAnswer {
  const n = o.n === undefined ? 1 : Number(o.n);
  const gpt = GPT_IMAGE.includes(model);
  if (gpt && (o.stream === true || o.stream === 'true')) {
    const partials = Number(o.partial_images ?? 0);
    const kind = imagesIn > 0 ? 'image_edit' : 'image_generation';
    const common = { created_at: 1767225600, size: o.size ?? '1024x1024', quality: 'high', background: 'opaque', output_format: 'png' };
    let text = '';
    for (let i = 0; i < partials; i++) {
      text += `event: ${kind}.partial_image\ndata: ${JSON.stringify({ type: `${kind}.partial_image`, b64_json: PNG_BASE64, partial_image_index: i, ...common })}\n\n`;
    }
    const usage = { total_tokens: 4210, input_tokens: 50, output_tokens: 4160, input_tokens_details: { text_tokens: 10, image_tokens: 40 } };
    text += `event: ${kind}.completed\ndata: ${JSON.stringify({ type: `${kind}.completed`, b64_json: PNG_BASE64, ...common, usage })}\n\n`;
    return { status: 200, text };
  }
  const asUrl = !gpt && o.response_format !== 'b64_json';
  const data = Array.from({ length: n }, (_v, i) =>
    asUrl ? { url: `${origin}/files/img_${i}.png`, revised_prompt: model === 'dall-e-3' ? `Revised: ${String(o.prompt)}` : null } : { b64_json: PNG_BASE64, revised_prompt: null },
  );
  const body: Json = { created: 1767225600, data };
  if (gpt) {
    const text = String(o.prompt).split(/\s+/).length;
    body.background = o.background ?? 'opaque';
    body.output_format = o.output_format ?? 'png';
    body.quality = o.quality ?? 'high';
    body.size = o.size ?? '1024x1024';
    body.usage = { input_tokens: text + 100 * imagesIn, input_tokens_details: { text_tokens: text, image_tokens: 100 * imagesIn }, output_tokens: 1000 * n, total_tokens: text + 100 * imagesIn + 1000 * n };
  }
  return { status: 200, json: body };
}

function modelOf(o: Json): string | MockAnswer {
  const model = o.model === undefined ? 'dall-e-2' : String(o.model);
  if (!IMAGE_MODELS.includes(model)) return err(400, `Invalid value for 'model': '${model}'.`, 'model', 'invalid_value');
  return model;
}

function generations(req: RecordedRequest, origin: string): MockAnswer {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json') || !req.body || typeof req.body !== 'object') return err(400, 'We could not parse the JSON body of your request.', null, null);
  const o = req.body as Json;
  for (const k of Object.keys(o)) if (!GEN_PARAMS.includes(k)) return unknownParam(k);
  const model = modelOf(o);
  if (typeof model !== 'string') return model;
  if (o.style !== undefined && model !== 'dall-e-3') return unknownParam('style');
  return checkImageOptions(o, model, false) ?? imagesAnswer(o, model, origin, 0);
}

function edits(req: RecordedRequest, origin: string): MockAnswer {
  const type = req.headers['content-type'] ?? '';
  if (type.startsWith('multipart/form-data')) {
    const mp = req.body as MultipartBody | undefined;
    if (!mp) return err(400, 'Could not parse multipart form.', null, null);
    const o: Json = {};
    for (const [k, v] of mp.fields) {
      if (!EDIT_PARAMS.includes(k)) return unknownParam(k);
      if (k in o) return err(400, `Duplicate parameter: '${k}'.`, k, 'duplicate_parameter');
      o[k] = v;
    }
    const single = mp.files.filter((f) => f.field === 'image');
    const array = mp.files.filter((f) => f.field === 'image[]');
    for (const f of mp.files) if (!['image', 'image[]', 'mask'].includes(f.field)) return unknownParam(f.field);
    if (single.length > 1) {
      return err(400, "Duplicate parameter: 'image'. You provided multiple values for this parameter, whereas only one is allowed. If you are trying to provide a list of values, use the array syntax instead e.g. 'image[]': <value>.", 'image', 'duplicate_parameter');
    }
    if (single.length && array.length) return err(400, "Send either 'image' or 'image[]'.", 'image', 'duplicate_parameter');
    const images = [...single, ...array];
    if (images.length === 0) return err(400, "Missing required parameter: 'image'.", 'image', 'missing_required_parameter');
    if (mp.files.filter((f) => f.field === 'mask').length > 1) return err(400, "Duplicate parameter: 'mask'.", 'mask', 'duplicate_parameter');
    for (const f of [...images, ...mp.files.filter((x) => x.field === 'mask')]) {
      if (!['image/png', 'image/jpeg', 'image/webp'].includes(f.type)) return err(400, `Invalid file '${f.filename}': unsupported mimetype ('${f.type}'). Supported file formats are 'image/jpeg', 'image/png', and 'image/webp'.`, f.field, 'invalid_image_format');
    }
    const model = modelOf(o);
    if (typeof model !== 'string') return model;
    if (model === 'dall-e-3') return err(400, 'dall-e-3 does not support edits.', 'model', 'invalid_value');
    if (model === 'dall-e-2' && images.length > 1) return err(400, 'dall-e-2 accepts exactly one image.', 'image', 'invalid_value');
    if (images.length > 16) return err(400, 'Too many images (max 16).', 'image', 'invalid_value');
    const numeric: Json = { ...o, ...(o.n !== undefined ? { n: Number(o.n) } : {}) };
    return checkImageOptions(numeric, model, true) ?? imagesAnswer(numeric, model, origin, images.length);
  }
  if (type.startsWith('application/json') && req.body && typeof req.body === 'object') {
    const o = req.body as Json;
    for (const k of Object.keys(o)) if (!EDIT_PARAMS.includes(k) || k === 'image' || k === 'image[]') return unknownParam(k);
    if (!Array.isArray(o.images) || o.images.length === 0) return err(400, "Missing required parameter: 'images'.", 'images', 'missing_required_parameter');
    const model = modelOf(o);
    if (typeof model !== 'string') return model;
    return checkImageOptions(o, model, true) ?? imagesAnswer(o, model, origin, o.images.length);
  }
  return err(400, "Invalid Content-Type header; expected 'multipart/form-data' or 'application/json'.", null, null);
}

interface VideoJob {
  id: string;
  model: string;
  prompt: string;
  seconds: string;
  size: string;
  polls: number;
  deleted: boolean;
}

function videoObject(job: VideoJob): Json {
  const base = { id: job.id, object: 'video', model: job.model, created_at: 1767225600, prompt: job.prompt, seconds: job.seconds, size: job.size, remixed_from_video_id: null };
  if (job.polls === 0) return { ...base, status: 'queued', progress: 0, completed_at: null, expires_at: null, error: null };
  if (job.polls < 3) return { ...base, status: 'in_progress', progress: 40 * job.polls, completed_at: null, expires_at: null, error: null };
  if (job.prompt.includes('fail')) {
    return { ...base, status: 'failed', progress: 100, completed_at: 1767225700, expires_at: null, error: { code: 'moderation_blocked', message: 'Your request was blocked by our moderation system.' } };
  }
  return { ...base, status: 'completed', progress: 100, completed_at: 1767225700, expires_at: 4102444800, error: null, quality: 'standard' };
}

/** `video`: what GET /v1/videos/{id}/content serves instead of the fake MP4 bytes (a real, playable clip for a browser test). */
export async function startMockMediaOpenAI(opts: { apiKey?: string; video?: { contentType: string; bytes: Buffer } } = {}): Promise<MockMediaOpenAI> {
  const apiKey = opts.apiKey ?? 'upstream-secret-openai-0123456789';
  const jobs = new Map<string, VideoJob>();
  const videoIds: string[] = [];
  let counter = 0;

  async function createVideo(req: RecordedRequest, raw: Buffer): Promise<MockAnswer> {
    const type = req.headers['content-type'] ?? '';
    let o: Json;
    if (type.startsWith('multipart/form-data')) {
      const mp = await parseMultipart(raw, type);
      if (!mp) return err(400, 'Could not parse multipart form.', null, null);
      o = Object.fromEntries(mp.fields);
      for (const f of mp.files) if (f.field !== 'input_reference') return unknownParam(f.field);
    } else if (type.startsWith('application/json') && req.body && typeof req.body === 'object') {
      o = req.body as Json;
    } else {
      return err(400, "Invalid Content-Type header; expected 'multipart/form-data' or 'application/json'.", null, null);
    }
    for (const k of Object.keys(o)) if (!['prompt', 'model', 'seconds', 'size', 'input_reference'].includes(k)) return unknownParam(k);
    if (typeof o.prompt !== 'string' || !o.prompt) return err(400, "Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter');
    const model = String(o.model ?? 'sora-2');
    if (!VIDEO_MODELS.includes(model)) return err(400, `Invalid value for 'model': '${model}'.`, 'model', 'invalid_value');
    if (o.seconds !== undefined && typeof o.seconds !== 'string') {
      return err(400, `Invalid type for 'seconds': expected one of '4', '8', or '12', but got ${typeof o.seconds === 'number' ? 'an integer' : typeof o.seconds} instead.`, 'seconds', 'invalid_type');
    }
    const seconds = (o.seconds as string | undefined) ?? '4';
    if (!['4', '8', '12'].includes(seconds)) return err(400, `Invalid value: '${seconds}'. Supported values are: '4', '8', and '12'.`, 'seconds', 'invalid_value');
    const size = String(o.size ?? '720x1280');
    const sizes = model.includes('pro') ? ['720x1280', '1280x720', '1024x1792', '1792x1024'] : ['720x1280', '1280x720'];
    if (!sizes.includes(size)) return err(400, `Invalid value: '${size}'. Supported values are: ${sizes.map((s) => `'${s}'`).join(', ')}.`, 'size', 'invalid_value');
    const id = `video_${(++counter).toString().padStart(4, '0')}abcdef`;
    const job: VideoJob = { id, model, prompt: o.prompt, seconds, size, polls: 0, deleted: false };
    jobs.set(id, job);
    videoIds.push(id);
    return { status: 200, json: videoObject(job) };
  }

  const vendor = await startMediaServer(apiKey, '/v1', async (req, raw, origin) => {
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${apiKey}`) {
      return err(401, `Incorrect API key provided: ${auth ? 'sk-***' : 'none'}. You can find your API key at https://platform.openai.com/account/api-keys.`, null, 'invalid_api_key');
    }
    const p = req.path;
    if (p === '/v1/images/generations') return req.method === 'POST' ? generations(req, origin) : err(405, 'Method not allowed', null, null);
    if (p === '/v1/images/edits') return req.method === 'POST' ? edits(req, origin) : err(405, 'Method not allowed', null, null);
    if (p === '/v1/videos' && req.method === 'POST') return createVideo(req, raw);
    const m = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(p);
    if (m) {
      const job = jobs.get(decodeURIComponent(m[1] ?? ''));
      if (!job || job.deleted) return err(404, `Video with id '${m[1]}' not found.`, null, 'video_not_found');
      if (m[2]) {
        if (req.method !== 'GET') return err(405, 'Method not allowed', null, null);
        const variant = req.query.get('variant') ?? 'video';
        if (!['video', 'thumbnail', 'spritesheet'].includes(variant)) return err(400, `Invalid value for 'variant': '${variant}'.`, 'variant', 'invalid_value');
        if (videoObject(job).status !== 'completed') return err(400, 'Video is not ready yet; wait until its status is completed.', null, 'video_not_ready');
        if (opts.video) return { status: 200, headers: { 'content-type': opts.video.contentType }, bytes: opts.video.bytes };
        return { status: 200, headers: { 'content-type': 'video/mp4' }, bytes: fakeVideoBytes(job.id) };
      }
      if (req.method === 'DELETE') {
        job.deleted = true;
        return { status: 200, json: { id: job.id, object: 'video.deleted', deleted: true } };
      }
      if (req.method !== 'GET') return err(405, 'Method not allowed', null, null);
      if (job.polls < 3) job.polls++;
      return { status: 200, json: videoObject(job) };
    }
    return err(404, `Invalid URL (${req.method} ${p})`, null, null);
  });
  return Object.assign(vendor, { videoIds, videoBytes: (id: string) => opts.video?.bytes ?? fakeVideoBytes(id) });
}
