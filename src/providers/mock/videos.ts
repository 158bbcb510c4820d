/**
 * The mock vendor's OpenAI Videos API. Stateless: the job id carries its creation second, the
 * requested seconds/size and whether it should fail, so any gateway instance (and any restart)
 * sees the same job. Timeline: queued for the first second, in progress for two more, then
 * completed — or failed when the prompt contains `[fail]`.
 */
import type { MockRoute } from './route.js';

const RUN_SECONDS = 3;

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function invalid(status: number, message: string, param: string | null): Response {
  return json(status, { error: { message, type: 'invalid_request_error', param, code: null } });
}

interface MockJob {
  id: string;
  created: number;
  fail: boolean;
  seconds: string;
  size: string;
}

function parseId(id: string): MockJob | undefined {
  const m = /^video_mock_(\d+)_([01])_(\d+)_(\d+x\d+)_[a-z0-9]+$/.exec(id);
  if (!m) return undefined;
  return { id, created: Number(m[1]), fail: m[2] === '1', seconds: m[3] ?? '4', size: m[4] ?? '1280x720' };
}

function videoObject(job: MockJob, model: string, now: number): Record<string, unknown> {
  const elapsed = now - job.created;
  const base = { id: job.id, object: 'video', model, created_at: job.created, seconds: job.seconds, size: job.size, remixed_from_video_id: null, expires_at: null };
  if (elapsed < 1) return { ...base, status: 'queued', progress: 0, completed_at: null, error: null };
  if (elapsed < RUN_SECONDS) return { ...base, status: 'in_progress', progress: Math.round((elapsed / RUN_SECONDS) * 100), completed_at: null, error: null };
  if (job.fail) return { ...base, status: 'failed', progress: 100, completed_at: job.created + RUN_SECONDS, error: { code: 'mock_failure', message: 'The mock video model was asked to fail.' } };
  return { ...base, status: 'completed', progress: 100, completed_at: job.created + RUN_SECONDS, expires_at: job.created + 3600, error: null };
}

/** Deterministic bytes per job: an ISO-BMFF `ftyp` box followed by a `free` box naming the job. */
function mockVideoBytes(id: string): Uint8Array<ArrayBuffer> {
  const text = new TextEncoder().encode(`modelgate mock video ${id}`);
  const out = new Uint8Array(24 + 8 + text.byteLength);
  const view = new DataView(out.buffer);
  view.setUint32(0, 24);
  out.set(new TextEncoder().encode('ftypisom'), 4);
  view.setUint32(12, 0x200);
  out.set(new TextEncoder().encode('isomavc1'), 16);
  view.setUint32(24, 8 + text.byteLength);
  out.set(new TextEncoder().encode('free'), 28);
  out.set(text, 32);
  return out;
}

async function createFields(request: Request): Promise<Record<string, unknown> | undefined> {
  const type = request.headers.get('content-type') ?? '';
  try {
    if (type.startsWith('multipart/form-data')) {
      const form = await request.formData();
      const out: Record<string, unknown> = {};
      form.forEach((v, k) => {
        if (typeof v === 'string') out[k] = v;
      });
      return out;
    }
    return (await request.json()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export const mockVideosRoute: MockRoute = async (request, url, now) => {
  const m = /\/videos(?:\/([^/]+)(\/content)?)?$/.exec(url.pathname);
  if (!m) return undefined;
  const [, rawId, content] = m;
  if (rawId === undefined) {
    if (request.method !== 'POST') return undefined;
    const body = await createFields(request);
    if (!body) return invalid(400, 'malformed request body', null);
    if (typeof body.prompt !== 'string' || body.prompt.trim() === '') return invalid(400, "'prompt' is required", 'prompt');
    const seconds = body.seconds ?? '4';
    if (typeof seconds !== 'string' || !/^\d+$/.test(seconds)) return invalid(400, "'seconds' must be a string of whole seconds", 'seconds');
    const size = body.size ?? '1280x720';
    if (typeof size !== 'string' || !/^\d+x\d+$/.test(size)) return invalid(400, "'size' must be WIDTHxHEIGHT", 'size');
    const fail = body.prompt.includes('[fail]') ? '1' : '0';
    const nonce = crypto.randomUUID().replace(/-/g, '').slice(0, 8);
    const job = parseId(`video_mock_${now}_${fail}_${seconds}_${size}_${nonce}`);
    if (!job) return invalid(400, 'bad job', null);
    return json(200, videoObject(job, typeof body.model === 'string' ? body.model : 'mock-video', now));
  }
  const job = parseId(decodeURIComponent(rawId));
  if (!job) return json(404, { error: { message: `Video '${rawId}' not found`, type: 'invalid_request_error', param: null, code: 'not_found' } });
  if (request.method !== 'GET') return undefined;
  const video = videoObject(job, 'mock-video', now);
  if (!content) return json(200, video);
  if (video.status !== 'completed') return invalid(409, 'The video is not ready.', null);
  const bytes = mockVideoBytes(job.id);
  return new Response(bytes, { status: 200, headers: { 'content-type': 'video/mp4', 'content-length': String(bytes.byteLength) } });
};
