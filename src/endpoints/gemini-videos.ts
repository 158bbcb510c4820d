/**
 * Gemini's video generation, as @google/genai's `models.generateVideos` and
 * `operations.getVideosOperation` and `files.download` call it, over the gateway's video tasks (any
 * configured video vendor, polling, idempotency, budgets): POST /{version}/models/{model}:predictLongRunning
 * answers an operation `models/{model}/operations/{id}`; GET /v1beta/models/{model}/operations/{id}
 * answers it (done with `response.generateVideoResponse.generatedSamples[0].video.uri`, or with an
 * `error`); GET /v1beta/files/{id}:download streams the video. Errors in Gemini's shape; another
 * key's operation is a 404.
 */
import { parseJsonObject } from '../request/body.js';
import { geminiIdOfTask, geminiVideoRequest, taskIdOfGeminiId } from '../protocols/videos/index.js';
import type { VideoTask } from '../tasks/video/video-task.js';
import type { EndpointContext } from './services.js';
import { authenticate, jsonResponse } from './common.js';
import { modelFromPath } from './gemini.js';
import { getVideoContent, ownTask, renamedParam, submitVideo } from './videos.js';
import type { Reply } from '../reply/reply.js';

/** The video job's field names in a refusal, as Gemini's caller sent them. */
const GEMINI_PARAMS: Record<string, string> = {
  duration: 'parameters.durationSeconds',
  'metadata.durationSeconds': 'parameters.durationSeconds',
  'metadata.aspectRatio': 'parameters.aspectRatio',
  'metadata.resolution': 'parameters.resolution',
  'metadata.negativePrompt': 'parameters.negativePrompt',
  'metadata.personGeneration': 'parameters.personGeneration',
  'metadata.generateAudio': 'parameters.generateAudio',
};


/**
 * The origin the caller reached the gateway at (its Host header; https when the request came over
 * TLS or a proxy says so): a sample's `uri` is fetched with the caller's key, as Gemini's is.
 */
function publicOrigin(ctx: EndpointContext): string {
  const forwarded = ctx.request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  const proto = forwarded === 'https' || forwarded === 'http' ? forwarded : ctx.url.protocol.replace(/:$/, '');
  const host = ctx.request.headers.get('host') ?? ctx.url.host;
  return `${proto}://${host}`;
}

const operationName = (task: VideoTask): string => `models/${task.data.model}/operations/${geminiIdOfTask(task.record.id)}`;

/** A task as Gemini's long-running operation. */
function operationOf(ctx: EndpointContext, task: VideoTask): Record<string, unknown> {
  const d = task.data;
  const name = operationName(task);
  if (d.status === 'succeeded') {
    const uri = `${publicOrigin(ctx)}/v1beta/files/${geminiIdOfTask(task.record.id)}:download?alt=media`;
    return {
      name,
      done: true,
      response: {
        '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
        generateVideoResponse: { generatedSamples: d.outputs.map(() => ({ video: { uri } })).slice(0, 1) },
      },
    };
  }
  if (d.status === 'failed') return { name, done: true, error: { code: 13, message: d.error?.message ?? 'The video generation failed.', status: 'INTERNAL' } };
  if (d.status === 'cancelled') return { name, done: true, error: { code: 1, message: 'The video generation was cancelled.', status: 'CANCELLED' } };
  return { name, done: false, metadata: { progress: d.progress } };
}

/** POST /{version}/models/{model}:predictLongRunning */
export async function geminiPredictLongRunning(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const principal = await authenticate(ctx);
  const req = geminiVideoRequest(modelFromPath(params.model), parseJsonObject(await ctx.body.text()));
  const result = await submitVideo(ctx, principal, req).catch((err: unknown) => {
    // Gemini's error body has no field of its own: the message names it.
    throw renamedParam(err, GEMINI_PARAMS, (message, param) => `${message} (field: ${param})`);
  });
  const task = await ctx.services.videoTasks.find(result.taskId, principal);
  return jsonResponse(ctx, operationOf(ctx, task), 200, result.replayed ? { 'idempotent-replayed': 'true' } : undefined);
}

/** GET /v1beta/models/{model}/operations/{id} */
export async function getGeminiVideoOperation(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const { task, principal } = await ownTask(ctx, { id: taskIdOfGeminiId(params.operation ?? '') });
  return jsonResponse(ctx, operationOf(ctx, await ctx.services.videoTasks.read(task, principal)));
}

/** GET /v1beta/files/{id}:download (alt=media): the finished video. */
export function downloadGeminiVideo(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  return getVideoContent(ctx, { id: taskIdOfGeminiId(params.file ?? '') });
}
