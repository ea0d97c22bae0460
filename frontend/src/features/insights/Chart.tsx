import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  /** A theme colour variable, such as --color-primary. */
  color: string;
  /** One value a day; null draws nothing (no data), never zero. */
  values: (number | null)[];
}

interface Props {
  /** The x values: seconds since the epoch. */
  x: number[];
  series: ChartSeries[];
  /** Describes the chart for assistive technology; its table holds the figures. */
  label: string;
  testId: string;
}

/** The theme's value of a CSS variable, for uPlot, which draws on a canvas. */
function themeColor(variable: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(variable).trim() || 'currentColor';
}

/** A line chart of daily figures drawn by uPlot; it follows its box's width. */
export function Chart({ x, series, label, testId }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const axis = { stroke: themeColor('--color-text-muted'), grid: { stroke: themeColor('--color-border') }, ticks: { stroke: themeColor('--color-border') } };
    const plot = new uPlot(
      {
        width: Math.max(240, el.clientWidth),
        height: 220,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: themeColor(s.color), width: 2, spanGaps: false }))],
        axes: [axis, axis],
        scales: { x: { time: true } },
        legend: { show: true },
      },
      [x, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(240, el.clientWidth), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series]);
  return <div ref={box} className="insights-chart" role="img" aria-label={label} data-testid={testId} />;
}
