/**
 * The plots as a person sees them: each SVG is rendered in headless Chromium, measured there (3–5 y
 * ticks per panel, every tick label and the capacity label outside the plotted area, 0 apart from 1
 * on the log scale, nothing wider than the page, a title and a description for screen readers) and
 * kept as a PNG in test-results/plots/ to look at. Skipped, with a notice, where no Chromium is
 * installed.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { symlogScale } from '../../../src/tools/simulator/plot/axis-scale.js';
import { lineChartSvg } from '../../../src/tools/simulator/plot/line-chart-svg.js';
import { smallMultiplesSvg } from '../../../src/tools/simulator/plot/small-multiples-svg.js';
import { type StormResult, simulateStorm, stormPolicy, stormSvg } from '../../../src/tools/simulator/index.js';
import { noJitterPolicy, redialerGrpcPolicy } from '../../../src/tools/simulator/policies/redialer-policies.js';
import { hasChromium, launchChromium, noticeIfNoChromium } from '../../support/chromium.js';

noticeIfNoChromium("the plots' headless Chromium test");

const root = fileURLToPath(new URL('../../..', import.meta.url));
const out = join(root, 'test-results/plots');

/** What the page measures of one rendered SVG. */
interface Measured {
  svgWidth: number;
  pageWidth: number;
  title: string;
  desc: string;
  labelledBy: boolean;
  panels: { ticks: string[]; tickYs: number[]; ticksOutside: boolean; referenceOutside: boolean | null }[];
}

async function render(page: Page, svg: string, name: string, width: number): Promise<Measured> {
  await page.setViewportSize({ width, height: 800 });
  await page.setContent(
    `<!doctype html><meta name="viewport" content="width=device-width"><body style="margin:0">${svg}</body>`,
  );
  await page.screenshot({ path: join(out, `${name}.png`), fullPage: true });
  return page.evaluate(() => {
    const svg = document.querySelector('svg')!;
    const box = (e: Element) => (e as SVGGraphicsElement).getBBox();
    // A panel is the plotted rectangle with its tick labels and reference label (in stacked panels,
    // a <g role="presentation">; a single chart is one panel).
    const groups = svg.querySelectorAll('g[role="presentation"]');
    const panels = (groups.length > 0 ? [...groups] : [svg]).map((g) => {
      const plot = box(g.querySelector('rect[stroke]')!);
      const ticks = [...g.querySelectorAll('text.y-tick')];
      const reference = g.querySelector('text.reference');
      return {
        ticks: ticks.map((t) => t.textContent ?? ''),
        tickYs: ticks.map((t) => Number(t.getAttribute('y'))),
        ticksOutside: ticks.every((t) => box(t).x + box(t).width <= plot.x),
        referenceOutside: reference === null ? null : box(reference).x >= plot.x + plot.width,
      };
    });
    const labelled = (svg.getAttribute('aria-labelledby') ?? '').split(' ');
    return {
      svgWidth: svg.getBoundingClientRect().width,
      pageWidth: document.documentElement.scrollWidth,
      title: svg.querySelector('title')?.textContent ?? '',
      desc: svg.querySelector('desc')?.textContent ?? '',
      labelledBy: labelled.length === 2 && labelled.every((id) => document.getElementById(id) !== null),
      panels,
    };
  });
}

function expectReadable(m: Measured, viewport: number): void {
  expect(m.pageWidth).toBeLessThanOrEqual(viewport);
  expect(m.labelledBy).toBe(true);
  expect(m.title.length).toBeGreaterThan(10);
  expect(m.desc.length).toBeGreaterThan(10);
  for (const panel of m.panels) {
    expect(panel.ticks.length).toBeGreaterThanOrEqual(3);
    expect(panel.ticks.length).toBeLessThanOrEqual(5);
    expect(panel.ticksOutside).toBe(true);
    expect(panel.referenceOutside).not.toBe(false);
    // Distinct positions at least a label's height apart.
    const ys = [...panel.tickYs].sort((a, b) => a - b);
    for (let i = 1; i < ys.length; i++) expect(ys[i]! - ys[i - 1]!).toBeGreaterThanOrEqual(10);
  }
}

describe.skipIf(!hasChromium)('the plots, rendered in headless Chromium', () => {
  let dir: string | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let results: StormResult[];

  beforeAll(async () => {
    await mkdir(out, { recursive: true });
    dir = await mkdtemp(join(tmpdir(), 'redialer-plots-'));
    context = await launchChromium(join(dir, 'profile'));
    page = context.pages()[0] ?? (await context.newPage());
    const common = { clients: 2000, outage: 30_000, capacity: 200, seed: 1 };
    results = [noJitterPolicy, redialerGrpcPolicy, stormPolicy('socket.io')].map((policy) =>
      simulateStorm({ ...common, policy }),
    );
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('the storm plot (CLI, shared time axis): titled with the scenario, 0 apart from 1, capacity labelled', async () => {
    const svg = stormSvg(results);
    const m = await render(page, svg, 'storm', 920);
    expectReadable(m, 920);
    expect(m.title).toBe(
      'Reconnect storm: 2,000 clients lose their server for 30 s; it comes back accepting 200 handshakes per second',
    );
    expect(m.desc).toMatch(/redialer-grpc: peak [\d,]+ attempts\/s after the return, all back [\d.]+ s after/);
    expect(m.panels).toHaveLength(3);
    // Symmetric log: 0 at the bottom, then powers of ten (a second with no attempt sits below one with 1).
    expect(m.panels[0]!.ticks[0]).toBe('0');
    expect(m.panels[0]!.ticks.slice(1).every((t) => /^(1|10|100|1k|10k|100k)$/.test(t))).toBe(true);
    expect(symlogScale(10_000).position(1)).toBeGreaterThan(symlogScale(10_000).position(0));
    expect(svg).toContain('>200/s</text>'); // the capacity line's label
    expect(svg).toContain('capacity: 200 handshakes/s');
    expect(svg).toContain('server back at 30 s');
  });

  it("the dashboard's storm plot at 360 px: per-panel time axes, wrapped title and legend, no overflow", async () => {
    const m = await render(page, stormSvg(results, { xRange: 'per-panel', width: 360 }), 'storm-narrow', 390);
    expectReadable(m, 390);
    expect(m.svgWidth).toBeLessThanOrEqual(360);
  });

  it('the benchmark charts: a line chart on a linear and a log scale, and stacked panels with their own x axes', async () => {
    const series = [
      { name: 'full jitter', points: [0, 10, 20, 40, 80].map((x) => [x, x * 12 + 3] as const) },
      { name: 'no jitter', points: [0, 10, 20, 40, 80].map((x) => [x, x * x] as const) },
    ];
    const linear = await render(
      page,
      lineChartSvg(series, { title: 'Calls per N', xLabel: 'clients (N)', yLabel: 'calls' }),
      'line-linear',
      920,
    );
    expectReadable(linear, 920);
    const log = await render(
      page,
      lineChartSvg(series, { title: 'Calls per N, log', xLabel: 'clients (N)', yLabel: 'calls', logY: true }),
      'line-log',
      920,
    );
    expectReadable(log, 920);
    expect(log.panels[0]!.ticks.slice(0, 2)).toEqual(['0', '1']);
    const stacked = smallMultiplesSvg(series, {
      title: 'Writes per 10 ms',
      xLabel: 'ms since start',
      yLabel: 'writes per 10 ms',
      sharedX: false,
    });
    expectReadable(await render(page, stacked, 'small-multiples', 920), 920);
  });
});
