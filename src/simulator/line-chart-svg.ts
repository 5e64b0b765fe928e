/**
 * A small, dependency-free SVG line chart: one polyline per series, axes with ticks, a legend.
 * @module
 */

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
  /** Logarithmic y axis (values below 1 are drawn at 1). @defaultValue false */
  readonly logY?: boolean;
  /** Vertical marker lines, e.g. the server's return. */
  readonly markers?: readonly { readonly x: number; readonly label: string }[];
  /** @defaultValue 900 */
  readonly width?: number;
  /** @defaultValue 480 */
  readonly height?: number;
}

const PALETTE = ['#1b6ca8', '#d1495b', '#edae49', '#00798c', '#30638e', '#8d6a9f', '#66a182', '#b5651d', '#555555', '#c2185b', '#7cb518', '#003d5b'];

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${String(c.charCodeAt(0))};`);
}

function niceStep(span: number, ticks: number): number {
  const raw = span / Math.max(1, ticks);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const residual = raw / magnitude;
  const nice = residual > 5 ? 10 : residual > 2 ? 5 : residual > 1 ? 2 : 1;
  return nice * magnitude;
}

function fmt(n: number): string {
  if (Math.abs(n) >= 10_000) return `${String(Math.round(n / 1000))}k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

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
  const logY = options.logY ?? false;
  const left = 70;
  const right = 200;
  const top = 40;
  const bottom = 50;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const all = series.flatMap((s) => s.points);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  const xMin = Math.min(0, ...xs);
  const xMax = Math.max(xMin + 1, ...xs);
  const yMaxRaw = Math.max(1, ...ys);
  const ty = (y: number): number => (logY ? Math.log10(Math.max(1, y)) : y);
  const yMax = logY ? Math.ceil(Math.log10(yMaxRaw) + 1e-9) || 1 : yMaxRaw * 1.05;
  const sx = (x: number): number => left + ((x - xMin) / (xMax - xMin)) * plotW;
  const sy = (y: number): number => top + plotH - (ty(y) / yMax) * plotH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(width)}" height="${String(height)}" viewBox="0 0 ${String(width)} ${String(height)}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="${String(left)}" y="22" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];
  // Axes and ticks.
  const xStep = niceStep(xMax - xMin, 10);
  for (let x = Math.ceil(xMin / xStep) * xStep; x <= xMax + 1e-9; x += xStep) {
    const px = sx(x).toFixed(1);
    parts.push(`<line x1="${px}" y1="${String(top)}" x2="${px}" y2="${String(top + plotH)}" stroke="#eeeeee"/>`);
    parts.push(`<text x="${px}" y="${String(top + plotH + 16)}" text-anchor="middle">${fmt(x)}</text>`);
  }
  const yTicks: number[] = [];
  if (logY) for (let e = 0; e <= yMax; e++) yTicks.push(10 ** e);
  else {
    const yStep = niceStep(yMax, 8);
    for (let y = 0; y <= yMax + 1e-9; y += yStep) yTicks.push(y);
  }
  for (const y of yTicks) {
    const py = sy(y).toFixed(1);
    parts.push(`<line x1="${String(left)}" y1="${py}" x2="${String(left + plotW)}" y2="${py}" stroke="#eeeeee"/>`);
    parts.push(`<text x="${String(left - 6)}" y="${py}" text-anchor="end" dominant-baseline="middle">${fmt(y)}</text>`);
  }
  parts.push(`<rect x="${String(left)}" y="${String(top)}" width="${String(plotW)}" height="${String(plotH)}" fill="none" stroke="#333333"/>`);
  parts.push(`<text x="${String(left + plotW / 2)}" y="${String(height - 12)}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`);
  parts.push(
    `<text transform="translate(16 ${String(top + plotH / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}${logY ? ' (log scale)' : ''}</text>`,
  );
  for (const marker of options.markers ?? []) {
    const px = sx(marker.x).toFixed(1);
    parts.push(`<line x1="${px}" y1="${String(top)}" x2="${px}" y2="${String(top + plotH)}" stroke="#333333" stroke-dasharray="4 3"/>`);
    parts.push(`<text x="${px}" y="${String(top - 4)}" text-anchor="middle">${escapeXml(marker.label)}</text>`);
  }
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length] ?? '#000000';
    const points = s.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${points}"/>`);
    const ly = top + 14 + i * 18;
    parts.push(`<line x1="${String(left + plotW + 12)}" y1="${String(ly)}" x2="${String(left + plotW + 32)}" y2="${String(ly)}" stroke="${color}" stroke-width="3"/>`);
    parts.push(`<text x="${String(left + plotW + 38)}" y="${String(ly)}" dominant-baseline="middle">${escapeXml(s.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
