/**
 * A dependency-free SVG of one small panel per series, stacked, so that many series stay readable.
 * @module
 */
import type { ChartSeries } from './line-chart-svg.js';

/** Options of {@link smallMultiplesSvg}. */
export interface SmallMultiplesOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** Logarithmic y axis (values below 1 are drawn at 1). @defaultValue false */
  readonly logY?: boolean;
  /** Same x range in every panel. @defaultValue true */
  readonly sharedX?: boolean;
  /** Vertical marker in every panel, e.g. the server's return. */
  readonly marker?: { readonly x: number; readonly label: string };
  /** Horizontal reference line in every panel, e.g. the server's capacity. */
  readonly reference?: { readonly y: number; readonly label: string };
  /** @defaultValue 900 */
  readonly width?: number;
  /** Height of one panel. @defaultValue 70 */
  readonly panelHeight?: number;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${String(c.charCodeAt(0))};`);
}

function fmt(n: number): string {
  if (Math.abs(n) >= 1000) return `${String(Math.round(n / 100) / 10)}k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function niceStep(span: number, ticks: number): number {
  const raw = span / Math.max(1, ticks);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const residual = raw / magnitude;
  return (residual > 5 ? 10 : residual > 2 ? 5 : residual > 1 ? 2 : 1) * magnitude;
}

/**
 * Renders one stacked panel per series as an SVG document.
 *
 * @example
 * ```ts
 * const svg = smallMultiplesSvg([{ name: 'a', points: [[0, 1], [1, 30]] }], { title: 't', xLabel: 's', yLabel: 'n', logY: true });
 * ```
 */
export function smallMultiplesSvg(series: readonly ChartSeries[], options: SmallMultiplesOptions): string {
  const width = options.width ?? 900;
  const panel = options.panelHeight ?? 70;
  const gap = 8;
  const left = 180;
  const right = 20;
  const top = 44;
  const bottom = 44;
  const plotW = width - left - right;
  const height = top + series.length * (panel + gap) + bottom;
  const logY = options.logY ?? false;
  const allX = series.flatMap((s) => s.points.map((p) => p[0]));
  const allY = series.flatMap((s) => s.points.map((p) => p[1]));
  const ty = (y: number): number => (logY ? Math.log10(Math.max(1, y)) : y);
  const yTop = Math.max(logY ? 1 : 1e-9, ...allY.map(ty), options.reference === undefined ? 0 : ty(options.reference.y));
  const yMax = logY ? Math.ceil(yTop) : yTop * 1.1;
  const sharedMax = Math.max(1, ...allX);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(width)}" height="${String(height)}" viewBox="0 0 ${String(width)} ${String(height)}" font-family="sans-serif" font-size="11">`,
    '<rect width="100%" height="100%" fill="#ffffff"/>',
    `<text x="10" y="20" font-size="14" font-weight="bold">${escapeXml(options.title)}</text>`,
    `<text x="10" y="36" fill="#555555">${escapeXml(options.yLabel)}${logY ? ' (log scale)' : ''}; x: ${escapeXml(options.xLabel)}</text>`,
  ];
  series.forEach((s, i) => {
    const y0 = top + i * (panel + gap);
    const xMax = options.sharedX === false ? Math.max(1, ...s.points.map((p) => p[0])) : sharedMax;
    const sx = (x: number): number => left + (x / xMax) * plotW;
    const sy = (y: number): number => y0 + panel - (ty(y) / yMax) * panel;
    out.push(`<rect x="${String(left)}" y="${String(y0)}" width="${String(plotW)}" height="${String(panel)}" fill="#fafafa" stroke="#999999"/>`);
    out.push(`<text x="${String(left - 8)}" y="${String(y0 + panel / 2)}" text-anchor="end" dominant-baseline="middle" font-size="12">${escapeXml(s.name)}</text>`);
    out.push(`<text x="${String(left + 3)}" y="${String(y0 + 10)}" fill="#777777">${fmt(logY ? 10 ** yMax : yMax)}</text>`);
    if (options.reference !== undefined) {
      const ry = sy(options.reference.y).toFixed(1);
      out.push(`<line x1="${String(left)}" y1="${ry}" x2="${String(left + plotW)}" y2="${ry}" stroke="#d1495b" stroke-dasharray="3 3"/>`);
    }
    if (options.marker !== undefined && options.marker.x <= xMax) {
      const mx = sx(options.marker.x).toFixed(1);
      out.push(`<line x1="${mx}" y1="${String(y0)}" x2="${mx}" y2="${String(y0 + panel)}" stroke="#333333" stroke-dasharray="4 3"/>`);
    }
    const points = s.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    out.push(`<polyline fill="none" stroke="#1b6ca8" stroke-width="1.2" points="${points}"/>`);
    if (options.sharedX === false || i === series.length - 1) {
      const step = niceStep(xMax, 10);
      for (let x = 0; x <= xMax + 1e-9; x += step) {
        out.push(`<text x="${sx(x).toFixed(1)}" y="${String(y0 + panel + (options.sharedX === false ? 9 : 14))}" text-anchor="middle" font-size="${options.sharedX === false ? '8' : '11'}">${fmt(x)}</text>`);
      }
    }
  });
  const legend: string[] = [];
  if (options.marker !== undefined) legend.push(`dashed black: ${options.marker.label}`);
  if (options.reference !== undefined) legend.push(`dashed red: ${options.reference.label}`);
  if (legend.length > 0) out.push(`<text x="${String(left)}" y="${String(height - 10)}" fill="#555555">${escapeXml(legend.join('; '))}</text>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
