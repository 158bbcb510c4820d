/**
 * The sweep plot (bench/plot.png): throughput and p99 latency against connections (log scale),
 * one line each for the floor, the peer and modelgate.
 */
import { writeFileSync } from 'node:fs';
import { Raster, type Rgb } from './raster.js';
import type { SweepPoint, SweepRole } from './sweep.js';

const SERIES: Array<{ role: SweepRole; label: string; color: Rgb }> = [
  { role: 'floor', label: 'floor (bare relay)', color: [120, 120, 120] },
  { role: 'peer', label: 'peer (Portkey)', color: [225, 115, 20] },
  { role: 'gateway', label: 'modelgate', color: [30, 90, 205] },
];
const INK: Rgb = [30, 30, 30];
const GRID: Rgb = [222, 222, 222];

/** 1, 2 or 5 times a power of ten, at least `raw`. */
function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].find((m) => m * p >= raw) ?? 10) * p;
}

function fmt(v: number, unit: 'rps' | 'ms'): string {
  if (v === 0) return '0';
  if (unit === 'ms') return v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2);
  return v >= 10_000 ? `${(v / 1000).toFixed(v % 1000 === 0 ? 0 : 1)}k` : v.toFixed(0);
}

interface Panel {
  x: number;
  y: number;
  w: number;
  h: number;
  title: string;
  unit: 'rps' | 'ms';
  value: (p: SweepPoint) => number;
}

function drawPanel(img: Raster, panel: Panel, points: SweepPoint[], connections: number[]): void {
  const { x, y, w, h } = panel;
  const values = points.map(panel.value).filter((v) => Number.isFinite(v));
  const step = niceStep(Math.max(...values, panel.unit === 'ms' ? 0.1 : 10) / 5);
  const top = Math.ceil(Math.max(...values, step) / step) * step;
  const lo = Math.log2(Math.min(...connections));
  const span = Math.log2(Math.max(...connections)) - lo;
  const px = (c: number) => (span === 0 ? x + w / 2 : x + ((Math.log2(c) - lo) / span) * w);
  const py = (v: number) => y + h - (v / top) * h;

  img.text(x, y - 34, panel.title, INK, 2);
  for (let v = 0; v <= top + step / 2; v += step) {
    img.line(x, py(v), x + w, py(v), GRID, 1);
    const label = fmt(v, panel.unit);
    img.text(x - 10 - Raster.textWidth(label), py(v) - 7, label, INK, 2);
  }
  for (const c of connections) {
    img.line(px(c), y, px(c), y + h, GRID, 1, 4);
    const label = String(c);
    img.text(px(c) - Raster.textWidth(label) / 2, y + h + 10, label, INK, 2);
  }
  img.line(x, y + h, x + w, y + h, INK, 2);
  img.line(x, y, x, y + h, INK, 2);
  const axis = 'connections (log scale)';
  img.text(x + w / 2 - Raster.textWidth(axis) / 2, y + h + 34, axis, INK, 2);

  for (const s of SERIES) {
    const line = connections
      .map((c) => points.find((p) => p.role === s.role && p.connections === c))
      .filter((p): p is SweepPoint => p !== undefined && Number.isFinite(panel.value(p)));
    for (let i = 1; i < line.length; i++) {
      const a = line[i - 1] as SweepPoint;
      const b = line[i] as SweepPoint;
      img.line(px(a.connections), py(panel.value(a)), px(b.connections), py(panel.value(b)), s.color, 3);
    }
    for (const p of line) img.fillRect(px(p.connections) - 4, py(panel.value(p)) - 4, 9, 9, s.color);
  }
}

/** Writes the PNG; `subtitle` says how it was measured (pinning, repetitions, machine). */
export function writeSweepPlot(points: SweepPoint[], file: string, title: string, subtitle: string): void {
  const connections = [...new Set(points.map((p) => p.connections))].sort((a, b) => a - b);
  const img = new Raster(1400, 680);
  img.text(40, 20, title, INK, 3);
  img.text(40, 56, subtitle, [90, 90, 90], 2);
  let lx = 40;
  for (const s of SERIES.filter((s) => points.some((p) => p.role === s.role))) {
    img.fillRect(lx, 90, 28, 6, s.color);
    img.text(lx + 36, 86, s.label, INK, 2);
    lx += 36 + Raster.textWidth(s.label) + 40;
  }
  const panel = { y: 170, w: 560, h: 400 };
  drawPanel(img, { ...panel, x: 110, title: 'throughput (req/s, higher is better)', unit: 'rps', value: (p) => p.rps }, points, connections);
  drawPanel(img, { ...panel, x: 790, title: 'p99 latency (ms, lower is better)', unit: 'ms', value: (p) => p.p99 }, points, connections);
  img.text(40, 646, 'Medians over repetitions. A missing point: no request both started and ended inside that measured window.', [90, 90, 90], 2);
  writeFileSync(file, img.toPng());
}
