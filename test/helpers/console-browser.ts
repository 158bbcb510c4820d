/**
 * The console's browser tests' tools: Debian's Chromium (/usr/bin/chromium) driven by
 * playwright-core, a real playable WebM clip recorded by that browser (the mock video vendor
 * serves it), axe-core run inside a page, and screenshots saved under test-results/console/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from './hosts.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-results/console');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** About a second of animated VP8 video in WebM, recorded from a canvas by the browser itself. */
export async function recordWebm(browser: Browser): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    const b64 = await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 160;
      canvas.height = 90;
      document.body.append(canvas);
      const g = canvas.getContext('2d') as CanvasRenderingContext2D;
      let i = 0;
      const timer = setInterval(() => {
        i += 12;
        g.fillStyle = `hsl(${i % 360} 70% 45%)`;
        g.fillRect(0, 0, 160, 90);
        g.fillStyle = '#fff';
        g.fillRect(i % 160, 30, 20, 20);
      }, 40);
      const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm;codecs=vp8' });
      const parts: Blob[] = [];
      recorder.ondataavailable = (e) => parts.push(e.data);
      const stopped = new Promise((r) => (recorder.onstop = r));
      recorder.start();
      await new Promise((r) => setTimeout(r, 1200));
      recorder.stop();
      await stopped;
      clearInterval(timer);
      const bytes = new Uint8Array(await new Blob(parts).arrayBuffer());
      let s = '';
      for (const b of bytes) s += String.fromCharCode(b);
      return btoa(s);
    });
    return Buffer.from(b64, 'base64');
  } finally {
    await page.close();
  }
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.1 A/AA rules and best practices). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Through the DevTools protocol, which the page's CSP does not govern (it refuses inline scripts).
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: Document, o: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
