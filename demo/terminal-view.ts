/**
 * The demo's terminal output. On a TTY a live panel is redrawn in place (state, countdown and a
 * timeline strip per client); otherwise (CI, a pipe) every phase and transition is one appended line.
 */
import type { ConnectivityState } from '../src/index.js';
import type { ClientTrack } from './client-track.js';
import { formatElapsed, type TimelineEntry } from './live-protocol.js';
import type { Phase } from './scenario.js';

/** Where the demo writes. */
export interface Output {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** What the runner tells a view. */
export interface DemoView {
  phase(index: number, phase: Phase, at: number): void;
  transition(client: ClientTrack, entry: TimelineEntry | null): void;
  /** Plain notes (settings, dashboard URL). */
  note(text: string): void;
  /** Stops redrawing; the next writes are plain lines. */
  finish(): void;
}

const COLOR: Record<ConnectivityState, string> = {
  IDLE: '\u001b[90m',
  CONNECTING: '\u001b[33m',
  READY: '\u001b[32m',
  TRANSIENT_FAILURE: '\u001b[31m',
  SHUTDOWN: '\u001b[90m',
};
const GLYPH: Record<ConnectivityState, string> = {
  IDLE: '·',
  CONNECTING: '▒',
  READY: '█',
  TRANSIENT_FAILURE: '░',
  SHUTDOWN: ' ',
};
const LETTER: Record<ConnectivityState, string> = {
  IDLE: '.',
  CONNECTING: 'c',
  READY: '#',
  TRANSIENT_FAILURE: 'x',
  SHUTDOWN: ' ',
};
const RESET = '\u001b[0m';
/** Which state a timeline cell shows when several occurred in it: failures stay visible. */
const RANK: Record<ConnectivityState, number> = { SHUTDOWN: 0, IDLE: 1, READY: 2, CONNECTING: 3, TRANSIENT_FAILURE: 4 };

const clock = formatElapsed;

/**
 * Whether to color the output, read as Node's own terminal code does (tty.getColorDepth): FORCE_COLOR
 * first ("0" or "false" turns color off, any other value on, even on a pipe), then NO_COLOR
 * (no-color.org: set and not empty turns it off) and TERM=dumb, then whether `out` is a terminal.
 */
export function colorWanted(out: Output, env: Readonly<Record<string, string | undefined>>): boolean {
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force !== 'false';
  const none = env['NO_COLOR'];
  if ((none !== undefined && none !== '') || env['TERM'] === 'dumb') return false;
  return out.isTTY === true;
}

/** `text` in the state's color, or plain. */
function paint(state: ConnectivityState, text: string, color: boolean): string {
  return color ? `${COLOR[state]}${text}${RESET}` : text;
}

function bold(text: string, color: boolean): string {
  return color ? `\u001b[1m${text}\u001b[0m` : text;
}

/**
 * One cell per `cell` ms from `start` to `end`: the highest-ranked state the client was in during
 * that cell (a failure shorter than a cell still shows).
 */
export function timelineCells(
  entries: readonly TimelineEntry[],
  start: number,
  end: number,
  cell: number,
): ConnectivityState[] {
  const cells: ConnectivityState[] = [];
  let i = 0;
  let current: ConnectivityState = 'IDLE';
  for (let t = start; t < end; t += cell) {
    let shown = current;
    while (i < entries.length && (entries[i]?.at ?? Infinity) < t + cell) {
      current = entries[i]?.state ?? current;
      if (RANK[current] > RANK[shown] || shown === 'IDLE') shown = current;
      i += 1;
    }
    cells.push(shown);
  }
  return cells;
}

/** A timeline strip as text: colored blocks on a terminal, letters otherwise. */
export function strip(cells: readonly ConnectivityState[], color: boolean): string {
  if (!color) return cells.map((s) => LETTER[s]).join('');
  let text = '';
  let previous: ConnectivityState | undefined;
  for (const s of cells) {
    text += s === previous ? GLYPH[s] : `${COLOR[s]}${GLYPH[s]}`;
    previous = s;
  }
  return text + RESET;
}

/** The legend of {@link strip}. */
export function legend(color: boolean): string {
  const states: ConnectivityState[] = ['READY', 'CONNECTING', 'TRANSIENT_FAILURE', 'IDLE'];
  return states.map((s) => (color ? `${COLOR[s]}${GLYPH[s]}${RESET} ${s}` : `${LETTER[s]} ${s}`)).join('   ');
}

function countdown(client: ClientTrack, now: number): string {
  const s = client.status;
  if (s.nextAttemptAt !== null) return `next attempt in ${(Math.max(0, s.nextAttemptAt - now) / 1000).toFixed(1)} s`;
  if (s.timeoutAt !== null) return `cut in ${(Math.max(0, s.timeoutAt - now) / 1000).toFixed(1)} s`;
  if (s.state === 'READY') return `up ${((now - s.since) / 1000).toFixed(1)} s`;
  return '';
}

/**
 * Cuts a line with color codes to `columns` visible characters, so that no line wraps (a wrapped line
 * would throw off the redraw in place).
 */
export function fit(line: string, columns: number): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length;) {
    if (line[i] === '\u001b') {
      const end = line.slice(i).search(/[A-Za-z]/);
      const code = end < 0 ? line.slice(i) : line.slice(i, i + end + 1);
      out += code;
      i += code.length;
      continue;
    }
    if (visible >= columns - 1) return `${out}…${out.includes('\u001b') ? RESET : ''}`;
    const char = String.fromCodePoint(line.codePointAt(i) ?? 32);
    out += char;
    visible += 1;
    i += char.length;
  }
  return out;
}

/** Appends one line per event: for CI logs and pipes (colored only when `color`, e.g. FORCE_COLOR). */
export function lineView(out: Output, startedAt: number, color = false): DemoView {
  const width = 9; // "websocket"
  return {
    phase(index, phase, at) {
      out.write(`${clock(at - startedAt)}  == ${String(index + 1)}. ${phase.name}: ${phase.explain}\n`);
    },
    transition(client, entry) {
      if (entry === null) return;
      out.write(
        `${clock(entry.at - startedAt)}  ${client.id.padEnd(width)}  ${paint(entry.state, entry.state.padEnd(17), color)}  ${entry.detail}\n`,
      );
    },
    note(text) {
      out.write(`${text}\n`);
    },
    finish() {
      // Nothing is redrawn.
    },
  };
}

/**
 * Redraws a live panel in place, ten times a second; `headline` shows until the first phase. Without
 * `color` (NO_COLOR), the same panel with letters for the timeline and no color codes.
 */
export function liveView(
  out: Output,
  startedAt: number,
  clients: () => readonly ClientTrack[],
  horizon: number,
  headline = '',
  color = true,
): DemoView {
  let phaseLine = headline;
  const recent: string[] = [];
  let drawn = 0;
  const width = (): number => Math.max(40, out.columns ?? 100);
  const columns = Math.max(60, Math.min(width(), 140));
  const cellWidth = Math.max(250, Math.ceil(horizon / (columns - 14) / 250) * 250);

  const draw = (): void => {
    const now = Date.now();
    const lines = [`${bold('redialer demo', color)}  ${clock(now - startedAt)}   ${phaseLine}`, ''];
    for (const client of clients()) {
      const s = client.status;
      lines.push(
        `  ${client.id.padEnd(10)} ${paint(s.state, s.state.padEnd(17), color)} attempt ${String(s.attempt).padEnd(3)} ${countdown(client, now).padEnd(22)} ${s.state === 'READY' ? '' : (s.error ?? '')}`,
      );
    }
    lines.push('', `  timeline, one cell = ${String(cellWidth / 1000)} s:   ${legend(color)}`);
    for (const client of clients()) {
      lines.push(`  ${client.id.padEnd(10)} ${strip(timelineCells(client.entries, startedAt, now, cellWidth), color)}`);
    }
    lines.push('', ...recent.slice(-8).map((l) => `  ${l}`));
    const text = lines.map((l) => `${fit(l, width())}\u001b[K`).join('\n');
    out.write(`${drawn > 0 ? `\u001b[${String(drawn - 1)}A\r` : ''}${text}\u001b[J`);
    drawn = lines.length;
  };
  const timer = setInterval(draw, 100);
  return {
    phase(index, phase, at) {
      phaseLine = `${bold(`${String(index + 1)}. ${phase.name}`, color)}: ${phase.explain}`;
      recent.push(`${clock(at - startedAt)}  == ${phase.name}`);
      draw();
    },
    transition(client, entry) {
      if (entry === null) return;
      recent.push(
        `${clock(entry.at - startedAt)}  ${client.id.padEnd(10)} ${paint(entry.state, entry.state.padEnd(17), color)} ${entry.detail}`,
      );
      if (drawn > 0) draw();
    },
    note(text) {
      if (drawn > 0) {
        out.write('\n');
        drawn = 0;
      }
      out.write(`${text}\n`);
    },
    finish() {
      clearInterval(timer);
      draw();
      out.write('\n\n');
      drawn = 0;
    },
  };
}
