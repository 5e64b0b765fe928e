/**
 * The demo's pure parts: the page's message parser, the dashboard's log and its clock, the timeline
 * cells, line fitting, the settings note, the summary.
 */
import { describe, expect, it } from 'vitest';
import { ClientTrack } from '../../demo/client-track.js';
import { parsePageMessage } from '../../demo/dashboard-server.js';
import { formatElapsed, type ServerMessage, type TimelineEntry } from '../../demo/live-protocol.js';
import { DashboardLog } from '../../demo/page/dashboard-log.js';
import { FAST_SCENARIO, FULL_SCENARIO, GRPC_DEFAULTS, differencesFromGrpc } from '../../demo/scenario.js';
import { summarize } from '../../demo/summary.js';
import { type DemoView, colorWanted, fit, lineView, liveView, timelineCells } from '../../demo/terminal-view.js';

describe('parsePageMessage', () => {
  it.each([
    ['{"type":"retry","client":"grpc"}', { type: 'retry', client: 'grpc' }],
    [
      '{"type":"fault","client":"websocket","fault":"blackhole"}',
      { type: 'fault', client: 'websocket', fault: 'blackhole' },
    ],
  ])('accepts %s', (text, message) => {
    expect(parsePageMessage(text)).toEqual(message);
  });

  it.each([
    'not json',
    'null',
    '[]',
    '{"type":"retry","client":"page"}',
    '{"type":"fault","client":"grpc","fault":"explode"}',
    '{"type":"shutdown","client":"grpc"}',
  ])('ignores %s', (text) => {
    expect(parsePageMessage(text)).toBeUndefined();
  });
});

describe("the dashboard's log: one clock, the demo's", () => {
  const START = 1_700_000_000_000;
  const grpc = (at: number, state: TimelineEntry['state'], detail: string): TimelineEntry => ({
    at: START + at,
    client: 'grpc',
    state,
    detail,
  });
  const hello = (now: number, timeline: TimelineEntry[]): ServerMessage => ({
    type: 'hello',
    now: START + now,
    startedAt: START,
    settings: {},
    differences: [],
    clients: [],
    timeline,
    phase: null,
  });
  const status = (now: number, entry: TimelineEntry): ServerMessage => ({
    type: 'status',
    now: START + now,
    client: new ClientTrack('grpc', 'gRPC', 'x').status,
    entry,
  });
  /** The seconds of each line, oldest first. */
  const seconds = (lines: string[]): number[] =>
    lines.map((l) => Number(/^ *(-?\d+\.\d\d) s {2}/.exec(l)![1])).reverse();

  /**
   * A page served 300 ms after the demo started, whose own clock reads `skew` ms off the demo's,
   * busy at load (the storm simulation on a slow machine): it handles the hello 1.55 s after the
   * demo sent it, and a status about a transition that happened before its own READY only after it.
   */
  it.each([
    ['the same as the demo', 0],
    ['an hour ahead', 3_600_000],
    ['an hour behind', -3_600_000],
    ['counting from its own load (performance.now)', -START - 300],
  ])('never shows a time before the start, or out of order, with the page clock %s', (_name, skew) => {
    let real = START;
    const pageClock = (): number => real + skew;
    const at = (ms: number): void => {
      real = START + ms;
    };
    at(302); // the page's first byte arrives; the demo stamped it when it served it, at 300
    const log = new DashboardLog({
      now: pageClock,
      served: { startedAt: START, at: START + 300, arrivedAt: pageClock() },
    });
    at(400);
    log.page(log.now(), 'CONNECTING', 'attempt 1');
    // The demo sends the hello at 450 (what it knows then); the busy page handles it at 2000.
    const history = [grpc(20, 'CONNECTING', 'attempt 1'), grpc(60, 'READY', 'attempt 1 connected')];
    at(1990);
    log.page(log.now(), 'READY', 'attempt 1');
    at(2000);
    log.receive(hello(450, history));
    // grpc lost its connection at 1950, before the page's READY; the page hears of it at 2010.
    at(2010);
    log.receive(status(1950, grpc(1950, 'TRANSIENT_FAILURE', 'connection lost')));

    const lines = log.lines();
    expect(lines).toEqual([
      '  1.99 s  page       READY              attempt 1',
      '  1.95 s  grpc       TRANSIENT_FAILURE  connection lost',
      '  0.40 s  page       CONNECTING         attempt 1',
      '  0.06 s  grpc       READY              attempt 1 connected',
      '  0.02 s  grpc       CONNECTING         attempt 1',
    ]);
    const times = seconds(lines);
    expect(times.every((t) => t >= 0)).toBe(true);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("counts from the demo's start before the first hello", () => {
    let page = 5;
    const log = new DashboardLog({ now: () => page, served: { startedAt: START, at: START + 1200, arrivedAt: 5 } });
    page = 105;
    log.page(log.now(), 'CONNECTING', 'attempt 1');
    expect(log.lines()).toEqual(['  1.30 s  page       CONNECTING         attempt 1']);
  });

  it('never reads a time earlier than one the demo has sent, and never runs backwards', () => {
    // A page clock that runs slow: after 10 s of the demo's, it has counted 9.9 s.
    let real = 0;
    const log = new DashboardLog({ now: () => real * 0.99, served: { startedAt: START, at: START, arrivedAt: 0 } });
    real = 10_000;
    expect(log.now()).toBe(START + 9900);
    log.receive(status(10_000, grpc(10_000, 'READY', 'attempt 2 connected')));
    expect(log.now()).toBe(START + 10_000);
    log.page(log.now(), 'CONNECTING', 'attempt 2');
    expect(seconds(log.lines())).toEqual([10, 10]);
    real = 10_050;
    expect(log.now()).toBeGreaterThanOrEqual(START + 10_000);
  });
});

describe('formatElapsed', () => {
  it.each([
    [0, '  0.00 s'],
    [20, '  0.02 s'],
    [3254, '  3.25 s'],
    [-0, '  0.00 s'],
    [-4, '  0.00 s'],
    [-20, ' -0.02 s'],
  ])('%d ms reads %j (never "-0.00 s"; a real negative stays visible)', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });
});

describe('timelineCells', () => {
  const entries = [
    { at: 0, client: 'grpc' as const, state: 'CONNECTING' as const, detail: '' },
    { at: 100, client: 'grpc' as const, state: 'READY' as const, detail: '' },
    { at: 2100, client: 'grpc' as const, state: 'TRANSIENT_FAILURE' as const, detail: '' },
    { at: 2150, client: 'grpc' as const, state: 'READY' as const, detail: '' },
  ];

  it('shows the state of each cell, and a failure shorter than a cell', () => {
    expect(timelineCells(entries, 0, 4000, 1000)).toEqual(['CONNECTING', 'READY', 'TRANSIENT_FAILURE', 'READY']);
  });

  it('starts IDLE before the first entry', () => {
    expect(timelineCells(entries, -2000, 0, 1000)).toEqual(['IDLE', 'IDLE']);
  });
});

describe('fit', () => {
  it('cuts visible characters only, keeping color codes', () => {
    expect(fit('\u001b[31mabcdef\u001b[0m', 4)).toBe('\u001b[31mabc…\u001b[0m');
    expect(fit('\u001b[31mab\u001b[0m', 4)).toBe('\u001b[31mab\u001b[0m');
  });
});

describe('scenario settings', () => {
  it("names every setting that differs from gRPC's defaults", () => {
    expect(differencesFromGrpc(GRPC_DEFAULTS)).toEqual([]);
    expect(differencesFromGrpc(FULL_SCENARIO.settings)).toEqual([
      'initial backoff 0.5 s (gRPC: 1 s)',
      'max backoff 5 s (gRPC: 120 s)',
      'min connect timeout 2.5 s (gRPC: 20 s)',
      "minUptime (flap guard) 2 s (redialer's default: 5 s)",
    ]);
  });

  it('plays the same phases fast and full, each with the four faults and two recoveries', () => {
    for (const scenario of [FULL_SCENARIO, FAST_SCENARIO]) {
      expect(scenario.phases.map((p) => p.fault.kind)).toEqual([
        'pass',
        'refuse',
        'pass',
        'blackhole',
        'close-after',
        'pass',
      ]);
      expect(scenario.phases.filter((p) => p.recovery).map((p) => p.name)).toEqual(['server back', 'recovery']);
    }
    expect(FULL_SCENARIO.phases.reduce((sum, p) => sum + p.duration, 0)).toBeLessThanOrEqual(60_000);
  });
});

describe('summarize', () => {
  it('times each recovery to the first READY before the next fault, and says when a client was not back', () => {
    const track = new ClientTrack('grpc', 'gRPC', 'x');
    const snap = (state: 'CONNECTING' | 'READY', since: number) =>
      state === 'READY'
        ? ({ state, since, attempt: 1, lastError: undefined, connection: 1 } as const)
        : ({ state, since, attempt: 1, lastError: undefined, timeoutAt: since + 1000 } as const);
    track.record(snap('CONNECTING', 0), 0);
    track.record(snap('READY', 10), 10);
    track.record(snap('CONNECTING', 5000), 5000);
    track.record(snap('READY', 5300), 5300);
    const phases = FAST_SCENARIO.phases;
    const starts = [
      { phase: phases[1]!, at: 1000 },
      { phase: phases[2]!, at: 4000 },
      { phase: phases[3]!, at: 6000 },
      { phase: phases[5]!, at: 8000 },
    ];
    const summary = summarize(
      [track],
      [
        { phase: 'server back', at: 4000 },
        { phase: 'recovery', at: 8000 },
      ],
      starts,
      { grpcOk: 1, grpcFailed: 2, echoes: 3 },
      0,
      9000,
    );
    expect(summary.clients[0]).toEqual({ id: 'grpc', attempts: 2, resets: 0, recoveredIn: [1300, null] });
    expect(summary.duration).toBe(9000);
  });
});

describe('terminal colors: NO_COLOR and FORCE_COLOR', () => {
  const tty = { write: () => true, isTTY: true };
  const pipe = { write: () => true, isTTY: false };

  it.each([
    ['a terminal', tty, {}, true],
    ['a pipe', pipe, {}, false],
    ['NO_COLOR=1 on a terminal', tty, { NO_COLOR: '1' }, false],
    ['NO_COLOR empty on a terminal (no-color.org: ignored)', tty, { NO_COLOR: '' }, true],
    ['TERM=dumb on a terminal', tty, { TERM: 'dumb' }, false],
    ['FORCE_COLOR=1 on a pipe', pipe, { FORCE_COLOR: '1' }, true],
    ['FORCE_COLOR empty on a pipe', pipe, { FORCE_COLOR: '' }, true],
    ['FORCE_COLOR=0 on a terminal', tty, { FORCE_COLOR: '0' }, false],
    ['FORCE_COLOR=1 with NO_COLOR=1 (FORCE_COLOR wins, as in Node)', pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
  ] as const)('%s', (_name, out, env, expected) => {
    expect(colorWanted(out, env)).toBe(expected);
  });

  /** Runs a view through a phase and a transition and returns what it wrote. */
  function written(
    make: (
      out: { write(text: string): boolean; isTTY: boolean; columns: number },
      clients: () => ClientTrack[],
    ) => DemoView,
  ): string {
    let text = '';
    const track = new ClientTrack('grpc', 'gRPC', 'x');
    const entry = track.record(
      { state: 'TRANSIENT_FAILURE', since: 10, attempt: 1, lastError: new Error('refused'), nextAttemptAt: 1010 },
      10,
    );
    const view = make({ write: (t) => ((text += t), true), isTTY: true, columns: 120 }, () => [track]);
    view.phase(0, FAST_SCENARIO.phases[0]!, 0);
    view.transition(track, entry);
    view.finish();
    return text;
  }
  // eslint-disable-next-line no-control-regex -- SGR color codes are what is checked
  const SGR = /\u001b\[[0-9;]*m/;

  it('the live panel without color writes no color codes, only cursor movement, and letters for the timeline', () => {
    const plain = written((out, clients) => liveView(out, Date.now() - 1000, clients, 10_000, '', false));
    expect(plain).not.toMatch(SGR);
    expect(plain).toContain('TRANSIENT_FAILURE');
    expect(plain).toContain('# READY');
    expect(written((out, clients) => liveView(out, Date.now() - 1000, clients, 10_000, '', true))).toMatch(SGR);
  });

  it('the line view colors the states only when asked (FORCE_COLOR on a pipe)', () => {
    expect(written((out) => lineView(out, 0))).not.toMatch(SGR);
    expect(written((out) => lineView(out, 0, true))).toMatch(SGR);
  });
});
