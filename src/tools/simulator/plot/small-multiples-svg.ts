/**
 * One small panel per series, stacked, so that many series stay readable: each panel titled above
 * its plot, 3–5 y ticks labelled left of the plot (never on a line), the reference line (the
 * server's capacity) labelled with its value right of the plot, a legend, and `<title>`/`<desc>` for
 * screen readers. Dependency-free.
 * @module
 */
import type { ChartSeries } from './line-chart-svg.js';
import { type AxisScale, linearScale, niceStep, symlogScale } from './axis-scale.js';
import { escapeXml, formatTick, idFor, textWidth, wrapText } from './svg-text.js';

/** One panel of {@link smallMultiplesSvg}. */
export interface PanelSeries extends ChartSeries {
  /** A short line under the name, e.g. the run's figures. */
  readonly note?: string;
}

/** Options of {@link smallMultiplesSvg}. */
export interface SmallMultiplesOptions {
  readonly title: string;
  readonly xLabel: string;
  /** What the y values are (also the legend entry of the lines). */
  readonly yLabel: string;
  /** Symmetric log y axis (0 and 1 stay apart). @defaultValue false */
  readonly logY?: boolean;
  /** Same x range in every panel; otherwise each panel ends where its series does. @defaultValue true */
  readonly sharedX?: boolean;
  /** Vertical marker in every panel, e.g. the server's return. */
  readonly marker?: { readonly x: number; readonly label: string };
  /** Horizontal reference line in every panel, e.g. the server's capacity, labelled with its value. */
  readonly reference?: { readonly y: number; readonly label: string; readonly unit?: string };
  /** A sentence for screen readers (`<desc>`); the title is the `<title>`. */
  readonly description?: string;
  /** @defaultValue 900 */
  readonly width?: number;
  /** Height of one panel's plot. @defaultValue 80 */
  readonly panelHeight?: number;
}

const LINE = '#1b6ca8';
const REFERENCE = '#c0392b';

/** Where a panel's series ends: its last non-zero point, a little beyond, and past the marker. */
function seriesEnd(points: ChartSeries['points'], marker: number | undefined): number {
  let last = 0;
  for (const [x, y] of points) if (y > 0 && x > last) last = x;
  const end = Math.max(last * 1.08, (marker ?? 0) * 1.25, 1);
  return Math.min(end, Math.max(1, ...points.map((p) => p[0])));
}

/**
 * Renders one stacked panel per series as an SVG document.
 *
 * @example
 * ```ts
 * const svg = smallMultiplesSvg([{ name: 'a', points: [[0, 1], [1, 30]] }], { title: 't', xLabel: 's', yLabel: 'n', logY: true });
 * ```
 */
export function smallMultiplesSvg(series: readonly PanelSeries[], options: SmallMultiplesOptions): string {
  const width = options.width ?? 900;
  const panel = options.panelHeight ?? 80;
  const sharedX = options.sharedX ?? true;
  const reference = options.reference;
  const left = 46;
  const referenceLabel = reference === undefined ? '' : `${formatTick(reference.y)}${reference.unit ?? ''}`;
  const right = reference === undefined ? 14 : Math.max(14, textWidth(referenceLabel, 10) + 12);
  const plotW = width - left - right;
  const out: string[] = [];
  let y = 8;

  // Title, wrapped to the width.
  const titleLines = wrapText(options.title, width - 16, 14);
  for (const line of titleLines) {
    y += 18;
    out.push(`<text x="8" y="${String(y)}" font-size="14" font-weight="bold">${escapeXml(line)}</text>`);
  }
  // Legend: a swatch and a label per item, flowing onto more lines when narrow.
  const items: { swatch: string; label: string }[] = [
    {
      swatch: `stroke="${LINE}" stroke-width="2"`,
      label: `${options.yLabel}${options.logY === true ? ' (log scale)' : ''}`,
    },
  ];
  if (options.marker !== undefined)
    items.push({ swatch: 'stroke="#333333" stroke-dasharray="4 3"', label: options.marker.label });
  if (reference !== undefined)
    items.push({ swatch: `stroke="${REFERENCE}" stroke-dasharray="3 3"`, label: reference.label });
  y += 8;
  let x = 8;
  let legendRow = y + 10;
  for (const item of items) {
    const itemWidth = 26 + textWidth(item.label, 11) + 16;
    if (x > 8 && x + itemWidth > width - 8) {
      x = 8;
      legendRow += 16;
    }
    out.push(
      `<line x1="${String(x)}" y1="${String(legendRow - 4)}" x2="${String(x + 20)}" y2="${String(legendRow - 4)}" ${item.swatch}/>`,
    );
    out.push(`<text x="${String(x + 26)}" y="${String(legendRow)}" font-size="11">${escapeXml(item.label)}</text>`);
    x += itemWidth;
  }
  y = legendRow + 8;

  const allY = series.flatMap((s) => s.points.map((p) => p[1]));
  const yMax = Math.max(1, ...allY, reference?.y ?? 0);
  const scale: AxisScale = options.logY === true ? symlogScale(yMax, panel) : linearScale(yMax);
  const sharedEnd = Math.max(1, ...series.map((s) => seriesEnd(s.points, options.marker?.x)));
  const xTickCount = Math.max(2, Math.floor(plotW / 55));

  series.forEach((s, i) => {
    const last = i === series.length - 1;
    const xMax = sharedX ? sharedEnd : seriesEnd(s.points, options.marker?.x);
    // Panel title (and note), above the plot.
    y += 16;
    const note = s.note === undefined ? '' : ` ${s.note}`;
    const oneLine = textWidth(`${s.name}${note}`, 12) <= width - left - 4;
    out.push(
      `<text x="${String(left)}" y="${String(y)}" font-size="12"><tspan font-weight="bold">${escapeXml(s.name)}</tspan>` +
        `${note === '' ? '' : oneLine ? `<tspan fill="#555555">${escapeXml(note)}</tspan>` : ''}</text>`,
    );
    if (note !== '' && !oneLine) {
      for (const line of wrapText(note.trim(), width - left - 4, 11)) {
        y += 14;
        out.push(`<text x="${String(left)}" y="${String(y)}" font-size="11" fill="#555555">${escapeXml(line)}</text>`);
      }
    }
    const top = y + 6;
    const sx = (v: number): number => left + (Math.min(v, xMax) / xMax) * plotW;
    const sy = (v: number): number => top + panel - scale.position(v) * panel;
    out.push(`<g role="presentation">`);
    out.push(
      `<rect x="${String(left)}" y="${String(top)}" width="${String(plotW)}" height="${String(panel)}" fill="#fbfbfc" stroke="#9aa3b5"/>`,
    );
    for (const tick of scale.ticks) {
      const ty = sy(tick).toFixed(1);
      out.push(`<line x1="${String(left)}" y1="${ty}" x2="${String(left + plotW)}" y2="${ty}" stroke="#e3e6ec"/>`);
      out.push(
        `<text class="y-tick" x="${String(left - 5)}" y="${ty}" text-anchor="end" dominant-baseline="middle" font-size="10" fill="#444444">${formatTick(tick)}</text>`,
      );
    }
    if (reference !== undefined) {
      const ry = sy(reference.y).toFixed(1);
      out.push(
        `<line x1="${String(left)}" y1="${ry}" x2="${String(left + plotW)}" y2="${ry}" stroke="${REFERENCE}" stroke-dasharray="3 3"/>`,
      );
      out.push(
        `<text class="reference" x="${String(left + plotW + 4)}" y="${ry}" dominant-baseline="middle" font-size="10" fill="${REFERENCE}">${escapeXml(referenceLabel)}</text>`,
      );
    }
    if (options.marker !== undefined && options.marker.x <= xMax) {
      const mx = sx(options.marker.x).toFixed(1);
      out.push(
        `<line x1="${mx}" y1="${String(top)}" x2="${mx}" y2="${String(top + panel)}" stroke="#333333" stroke-dasharray="4 3"/>`,
      );
    }
    const shown = s.points.filter(([px]) => px <= xMax);
    const line = shown.map(([px, py]) => `${sx(px).toFixed(1)},${sy(py).toFixed(1)}`).join(' ');
    const first = shown[0];
    const lastPoint = shown.at(-1);
    if (first !== undefined && lastPoint !== undefined) {
      const base = sy(0).toFixed(1);
      out.push(
        `<polygon fill="${LINE}" fill-opacity="0.12" points="${sx(first[0]).toFixed(1)},${base} ${line} ${sx(lastPoint[0]).toFixed(1)},${base}"/>`,
      );
      out.push(`<polyline class="series" fill="none" stroke="${LINE}" stroke-width="1.4" points="${line}"/>`);
    }
    out.push('</g>');
    y = top + panel;
    if (!sharedX || last) {
      const step = niceStep(xMax, xTickCount);
      for (let tick = 0; tick <= xMax + 1e-9; tick += step) {
        const tx = sx(tick);
        const anchor = tick === 0 ? 'start' : tx > left + plotW - 12 ? 'end' : 'middle';
        out.push(
          `<text x="${tx.toFixed(1)}" y="${String(y + 12)}" text-anchor="${anchor}" font-size="10" fill="#444444">${formatTick(tick)}</text>`,
        );
      }
      y += 14;
    }
    if (last) {
      y += 14;
      out.push(
        `<text x="${String(left + plotW / 2)}" y="${String(y)}" text-anchor="middle" font-size="11">${escapeXml(options.xLabel)}</text>`,
      );
    }
  });
  const height = y + 10;
  const id = idFor(options.title + series.map((s) => s.name).join());
  const head = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(width)}" height="${String(height)}" viewBox="0 0 ${String(width)} ${String(height)}" font-family="system-ui, sans-serif" role="img" aria-labelledby="${id}-title ${id}-desc">`,
    `<title id="${id}-title">${escapeXml(options.title)}</title>`,
    `<desc id="${id}-desc">${escapeXml(options.description ?? `${options.yLabel} over ${options.xLabel}, one panel per series: ${series.map((s) => s.name).join(', ')}.`)}</desc>`,
    '<rect width="100%" height="100%" fill="#ffffff"/>',
  ];
  return `${[...head, ...out, '</svg>'].join('\n')}\n`;
}
