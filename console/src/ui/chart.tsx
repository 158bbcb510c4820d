/**
 * A time chart (uPlot: ~50 KB, canvas, no dependencies). The canvas is described for screen
 * readers by its figure caption and a table of the same numbers beside it on each page.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
  color: string;
  /** Its own right-hand axis (e.g. money beside counts). */
  axis?: 'right';
  format?: (v: number) => string;
}

export function TimeChart(props: { title: string; times: number[]; series: ChartSeries[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const right = props.series.some((s) => s.axis === 'right');
    const opts: uPlot.Options = {
      width: Math.max(260, el.clientWidth),
      height: props.height ?? 220,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, ...(right ? { r: {} } : {}) },
      axes: [
        { stroke: '#333', grid: { stroke: '#e3e6ea' } },
        { stroke: '#333', grid: { stroke: '#e3e6ea' }, size: 60 },
        ...(right ? [{ scale: 'r', side: 1, stroke: '#333', grid: { show: false }, size: 60 } as uPlot.Axis] : []),
      ],
      series: [
        {},
        ...props.series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          fill: `${s.color}22`,
          ...(s.axis === 'right' ? { scale: 'r' } : {}),
          ...(s.format ? { value: (_u: uPlot, v: number | null) => (v === null ? '–' : (s.format as (n: number) => string)(v)) } : {}),
        })),
      ],
    };
    const data: uPlot.AlignedData = [props.times.map((t) => t / 1000), ...props.series.map((s) => s.values)];
    const chart = new uPlot(opts, data, el);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(260, el.clientWidth), height: props.height ?? 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [props.times, props.series, props.height]);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={box} role="img" aria-label={`${props.title} chart`} />
    </figure>
  );
}
