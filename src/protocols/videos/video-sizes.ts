/**
 * Video sizes as OpenAI's Videos API names them (`WxH`) against the gateway's aspect ratio and
 * resolution (the short side): the OpenAI video upstream writes them (providers/openai/videos.ts)
 * and OpenAI's Videos API clients send and read them (client/openai-videos.ts).
 */

/** OpenAI's sizes by `<aspect ratio>@<resolution>`. */
export const OPENAI_VIDEO_SIZES: Readonly<Record<string, string>> = {
  '16:9@720p': '1280x720',
  '9:16@720p': '720x1280',
  '16:9@1024p': '1792x1024',
  '9:16@1024p': '1024x1792',
};

/** `WxH` for an aspect ratio and a resolution: `sizes` first, else short side = resolution; undefined when neither tells. */
export function videoSize(aspectRatio: string, resolution: string, sizes: Readonly<Record<string, string>> = OPENAI_VIDEO_SIZES): string | undefined {
  const known = sizes[`${aspectRatio}@${resolution}`];
  if (known) return known;
  const [a, b] = aspectRatio.split(':').map(Number);
  const short = Number.parseInt(resolution, 10);
  if (!a || !b || !short) return undefined;
  const even = (n: number): number => Math.round(n / 2) * 2;
  return a >= b ? `${even((short * a) / b)}x${short}` : `${short}x${even((short * b) / a)}`;
}
