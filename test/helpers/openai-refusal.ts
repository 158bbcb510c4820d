/** What the official openai SDK threw for a refused call: its status, the error's param and message (it must be an APIError). */
import OpenAI from 'openai';
import { expect } from 'vitest';

export async function openAIRefusal(call: Promise<unknown>): Promise<{ status: number; param: unknown; message: string; body: unknown }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OpenAI.APIError);
  const e = err as InstanceType<typeof OpenAI.APIError>;
  return { status: e.status as number, param: (e.error as { param?: unknown } | undefined)?.param, message: e.message, body: e.error };
}
