/**
 * The video task service on its own (no HTTP): submission, idempotency, reads that advance the
 * task, cancel, and the status-change observer, against the built-in mock vendor and a fake clock.
 */
import { describe, expect, it } from 'vitest';
import { createServices } from '../../../src/gateway/services.js';
import { GatewayError } from '../../../src/core/errors.js';
import { MemoryTaskStore } from '../../../src/tasks/memory-task-store.js';
import { VideoTaskService } from '../../../src/tasks/video/video-service.js';
import type { VideoStatus } from '../../../src/tasks/video/video-task.js';

const START = 1_767_225_600_000;

function setup() {
  const clock = { now: START };
  const now = () => clock.now;
  const rt = createServices({ providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-video', provider: 'mock', capabilities: ['video'] }], keys: [{ id: 'team', key: 'mg-video-service-000001' }] }, { env: {}, now, video: { pollerTickMs: false } });
  const changes: Array<[string, VideoStatus | null, VideoStatus]> = [];
  let ids = 0;
  const service = new VideoTaskService({
    ...rt,
    now,
    newId: (prefix = '') => `${prefix}${++ids}`,
    store: new MemoryTaskStore(now),
    options: { pollerTickMs: false, staleAfterMs: 0 },
    onStatusChange: (task, from, to) => changes.push([task.record.id, from, to]),
  });
  const model = rt.models.resolve('mock-video');
  if (!model) throw new Error('model missing');
  const principal = { id: 'team' };
  return { clock, service, model, principal, changes };
}

describe('VideoTaskService', () => {
  it('reports every stored status change, from creation to the end', async () => {
    const { clock, service, model, principal, changes } = setup();
    const submitted = await service.submit(service.prepare(model, { model: 'mock-video', prompt: 'a fox' }), { principal, requestId: undefined });
    expect(submitted).toEqual({ requestId: 'req_1', taskId: 'vtask_2', status: 'accepted', replayed: false });
    expect(changes).toEqual([
      ['vtask_2', null, 'accepted'],
      ['vtask_2', 'accepted', 'queued'],
    ]);
    clock.now += 2000;
    const running = await service.read(await service.find('vtask_2', principal), principal);
    expect(running.data.status).toBe('in_progress');
    clock.now += 2000;
    const done = await service.read(running, principal);
    expect(done.data.status).toBe('succeeded');
    expect(changes.slice(2)).toEqual([
      ['vtask_2', 'queued', 'in_progress'],
      ['vtask_2', 'in_progress', 'succeeded'],
    ]);
    // A read of a finished task stores nothing and reports nothing.
    await service.read(done, principal);
    expect(changes).toHaveLength(4);
  });

  it('answers a repeated Request-Id with the first task, and refuses it for a different request', async () => {
    const { service, model, principal, changes } = setup();
    const first = await service.submit(service.prepare(model, { model: 'mock-video', prompt: 'a fox' }), { principal, requestId: 'retry-1' });
    const again = await service.submit(service.prepare(model, { model: 'mock-video', prompt: 'a fox' }), { principal, requestId: 'retry-1' });
    expect(again).toEqual({ requestId: 'retry-1', taskId: first.taskId, status: 'queued', replayed: true });
    const other = service.submit(service.prepare(model, { model: 'mock-video', prompt: 'a cat' }), { principal, requestId: 'retry-1' });
    await expect(other).rejects.toMatchObject({ status: 409, param: 'Request-Id' });
    expect(changes.map(([, from, to]) => `${from}->${to}`)).toEqual(['null->accepted', 'accepted->queued']);
  });

  it('cancels once, reports it, and hides tasks from other principals', async () => {
    const { service, model, principal, changes } = setup();
    const { taskId } = await service.submit(service.prepare(model, { model: 'mock-video', prompt: 'a fox' }), { principal, requestId: undefined });
    const cancelled = await service.cancel(await service.find(taskId, principal), principal);
    expect(cancelled.data.status).toBe('cancelled');
    expect(await service.cancel(cancelled, principal)).toBe(cancelled);
    expect(changes.at(-1)).toEqual([taskId, 'queued', 'cancelled']);
    const err = await service.find(taskId, { id: 'someone-else' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({ status: 404, param: 'task_id' });
  });

  it('refuses a callback URL without a signing secret or into a private network', () => {
    const { service, model } = setup();
    expect(() => service.prepare(model, { model: 'mock-video', prompt: 'x', callback_url: 'https://example.com/hook' })).toThrow(/video\.callbackSecret/);
    const rt = createServices({ providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-video', provider: 'mock', capabilities: ['video'] }] }, { env: {}, video: { pollerTickMs: false, callbackSecret: 'cb-secret' } });
    expect(() => rt.videoTasks.prepare(model, { model: 'mock-video', prompt: 'x', callback_url: 'http://169.254.169.254/latest' })).toThrow(/private network/);
    expect(rt.videoTasks.prepare(model, { model: 'mock-video', prompt: 'x', callback_url: 'https://example.com/hook' }).callbackUrl).toBe('https://example.com/hook');
  });

  it('an observer that throws changes nothing', async () => {
    const { model, principal } = setup();
    const rt = createServices({ providers: [{ id: 'mock', type: 'mock' }], models: [] }, { env: {} });
    const service = new VideoTaskService({ ...rt, store: new MemoryTaskStore(), options: { pollerTickMs: false }, onStatusChange: () => { throw new Error('metrics down'); } });
    const result = await service.submit(service.prepare(model, { model: 'mock-video', prompt: 'a fox' }), { principal, requestId: undefined });
    expect(result.status).toBe('accepted');
    const task = await service.find(result.taskId, principal);
    expect(task.data.status).toBe('queued');
    await service.stop();
    await rt.videoTasks.stop();
  });
});
