/**
 * A small, dependency-free SVG line chart: one polyline per series, 3–5 labelled ticks on each axis
 * (outside the plot, so never on a line), a legend, and `<title>`/`<desc>` for screen readers.
 * @module
 */
import { type AxisScale, linearScale, niceStep, symlogScale } from './axis-scale.js';
import { escapeXml, formatTick, idFor, textWidth } from './svg-text.js';

/** One line of a chart. */
export interface ChartSeries {
  readonly name: string;
  /** Points as [x, y]. */
  readonly points: readonly (readonly [number, number])[];
}

/** Options of {@link lineChartSvg}. */
export interface LineChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** Symmetric log y axis (0 and 1 stay apart). @defaultValue false */
  readonly logY?: boolean;
  /** Vertical marker lines, e.g. the server's return. */
  readonly markers?: readonly { readonly x: number; readonly label: string }[];
  /** A sentence for screen readers (`<desc>`). */
  readonly description?: string;
  /** @defaultValue 900 */
  readonly width?: number;
  /** @defaultValue 480 */
  readonly height?: number;
}

const PALETTE = [
  '#1b6ca8',
  '#d1495b',
  '#edae49',
  '#00798c',
  '#30638e',
  '#8d6a9f',
  '#66a182',
  '#b5651d',
  '#555555',
  '#c2185b',
  '#7cb518',
  '#003d5b',
];

/**
 * Renders series as an SVG document.
 *
 * @example
 * ```ts
 * const svg = lineChartSvg([{ name: 'a', points: [[0, 1], [1, 3]] }], { title: 't', xLabel: 's', yLabel: 'n' });
 * ```
 */
export function lineChartSvg(series: readonly ChartSeries[], options: LineChartOptions): string {
  const width = options.width ?? 900;
  const height = options.height ?? 480;
  const left = 64;
  const right = Math.min(260, 48 + Math.max(0, ...series.map((s) => textWidth(s.name, 12))));
  const top = 44;
  const bottom = 50;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const all = series.flatMap((s) => s.points);
  const xMin = Math.min(0, ...all.map((p) => p[0]));
  const xMax = Math.max(xMin + 1, ...all.map((p) => p[0]));
  const yMax = Math.max(1, ...all.map((p) => p[1]));
  const scale: AxisScale = options.logY === true ? symlogScale(yMax, plotH) : linearScale(yMax);
  const sx = (x: number): number => left + ((x - xMin) / (xMax - xMin)) * plotW;
  const sy = (y: number): number => top + plotH - scale.position(y) * plotH;
  const id = idFor(options.title);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(width)}" height="${String(height)}" viewBox="0 0 ${String(width)} ${String(height)}" font-family="system-ui, sans-serif" font-size="12" role="img" aria-labelledby="${id}-title ${id}-desc">`,
    `<title id="${id}-title">${escapeXml(options.title)}</title>`,
    `<desc id="${id}-desc">${escapeXml(options.description ?? `${options.yLabel} against ${options.xLabel}, one line per series: ${series.map((s) => s.name).join(', ')}.`)}</desc>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${String(left)}" y="22" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];
  const xStep = niceStep(xMax - xMin, Math.max(2, Math.min(5, Math.floor(plotW / 90))));
  for (let x = Math.ceil(xMin / xStep) * xStep; x <= xMax + 1e-9; x += xStep) {
    const px = sx(x).toFixed(1);
    parts.push(`<line x1="${px}" y1="${String(top)}" x2="${px}" y2="${String(top + plotH)}" stroke="#eeeeee"/>`);
    parts.push(`<text x="${px}" y="${String(top + plotH + 16)}" text-anchor="middle">${formatTick(x)}</text>`);
  }
  for (const y of scale.ticks) {
    const py = sy(y).toFixed(1);
    parts.push(`<line x1="${String(left)}" y1="${py}" x2="${String(left + plotW)}" y2="${py}" stroke="#eeeeee"/>`);
    parts.push(
      `<text class="y-tick" x="${String(left - 6)}" y="${py}" text-anchor="end" dominant-baseline="middle">${formatTick(y)}</text>`,
    );
  }
  parts.push(
    `<rect x="${String(left)}" y="${String(top)}" width="${String(plotW)}" height="${String(plotH)}" fill="none" stroke="#333333"/>`,
  );
  parts.push(
    `<text x="${String(left + plotW / 2)}" y="${String(height - 12)}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
  );
  parts.push(
    `<text transform="translate(16 ${String(top + plotH / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}${scale.note}</text>`,
  );
  for (const marker of options.markers ?? []) {
    const px = sx(marker.x).toFixed(1);
    parts.push(
      `<line x1="${px}" y1="${String(top)}" x2="${px}" y2="${String(top + plotH)}" stroke="#333333" stroke-dasharray="4 3"/>`,
    );
    parts.push(`<text x="${px}" y="${String(top - 6)}" text-anchor="middle">${escapeXml(marker.label)}</text>`);
  }
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length] ?? '#000000';
    const points = s.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    parts.push(`<polyline class="series" fill="none" stroke="${color}" stroke-width="1.8" points="${points}"/>`);
    const ly = top + 14 + i * 18;
    parts.push(
      `<line x1="${String(left + plotW + 12)}" y1="${String(ly)}" x2="${String(left + plotW + 32)}" y2="${String(ly)}" stroke="${color}" stroke-width="3"/>`,
    );
    parts.push(
      `<text x="${String(left + plotW + 38)}" y="${String(ly)}" dominant-baseline="middle">${escapeXml(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
