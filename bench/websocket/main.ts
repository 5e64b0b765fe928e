/**
 * `npm run bench:websocket [-- --sockets 2000 --downtime 4000 --rounds 3 --rws-min-delay 3000|drawn]`:
 * redialer's ReconnectingWebSocket, partysocket and reconnecting-websocket, a fleet of each against
 * one loopback `ws` server that drops them all (method: `websocket-bench.ts`). Prints a Markdown
 * table, each figure with redialer ÷ the best peer, and writes bench/results/websocket.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { environment } from '../support/environment.js';
import { median } from '../support/median.js';
import { type RoundFigure, type RoundKind, SUBJECTS, type Subject, runWebSocketBench } from './websocket-bench.js';

const { values } = parseArgs({
  options: {
    sockets: { type: 'string' },
    downtime: { type: 'string' },
    rounds: { type: 'string' },
    'rws-min-delay': { type: 'string' },
  },
});
function count(name: string, value: string | undefined, fallback: number, min: number): number {
  const n = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(n) || n < min) throw new RangeError(`--${name} must be an integer of at least ${String(min)}`);
  return n;
}
const sockets = count('sockets', values.sockets, 2000, 1);
const downtime = count('downtime', values.downtime, 4000, 0);
const rounds = count('rounds', values.rounds, 3, 1);
/** reconnecting-websocket's minReconnectionDelay: by default the mean of its per-process draw; `drawn` for the draw. */
const rwsArgument = values['rws-min-delay'];
const rwsMinDelay = rwsArgument === 'drawn' ? 'drawn' : count('rws-min-delay', rwsArgument, 3000, 0);
const given = Object.entries(values).map(([name, value]) => `--${name} ${value}`);
const command = ['npm run bench:websocket', ...(given.length > 0 ? ['--', ...given] : [])].join(' ');
const say = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

const started = performance.now();
const result = await runWebSocketBench({ sockets, downtime, rounds, rwsMinDelay, say });
const seconds = (performance.now() - started) / 1000;

/** The sampling interval of the event-loop histogram, ms (its values include it). */
const LOOP_RESOLUTION = 10;

const whole = (n: number): string => Math.round(n).toLocaleString('en-US');
const fixed =
  (digits: number): ((n: number) => string) =>
  (n) =>
    n.toFixed(digits);

interface Row {
  readonly figure: string;
  readonly unit: string;
  readonly kind: RoundKind;
  readonly value: (f: RoundFigure) => number | undefined;
  readonly format: (n: number) => string;
  /** A figure with the target redialer ≤ 1.0 × the best peer (lower is better). */
  readonly target: boolean;
  /** Whether a ratio means anything (not for where the fleet stood when a figure was taken). */
  readonly ratio?: false;
}

const wsHeap = (round: number): number => result.wsHeapOpenPerSocket[round] ?? NaN;
const rows: readonly Row[] = [
  {
    figure: 'retained heap per socket, open',
    unit: 'B',
    kind: 'heap',
    value: (f) => f.heapOpenPerSocket,
    format: whole,
    target: true,
  },
  {
    figure: '… of which above a plain `ws` socket',
    unit: 'B',
    kind: 'heap',
    value: (f) => f.heapOpenPerSocket - wsHeap(f.round),
    format: whole,
    target: true,
  },
  {
    figure: 'retained heap per socket, waiting to reconnect after a refused attempt',
    unit: 'B',
    kind: 'heap',
    value: (f) => f.heapWaitingPerSocket,
    format: whole,
    target: true,
  },
  {
    figure: '… and just dropped, before the first retry',
    unit: 'B',
    kind: 'heap',
    value: (f) => f.heapDroppedPerSocket,
    format: whole,
    target: true,
  },
  {
    figure: 'CPU per reconnect',
    unit: 'µs',
    kind: 'together',
    value: (f) => f.cpuMsPerReconnect * 1000,
    format: whole,
    target: true,
  },
  {
    figure: '… per TCP dial (refused or not)',
    unit: 'µs',
    kind: 'together',
    value: (f) => (f.cpuMs * 1000) / f.dials,
    format: whole,
    target: false,
  },
  {
    figure: 'CPU per reconnect, alone (for comparison)',
    unit: 'µs',
    kind: 'alone',
    value: (f) => f.cpuMsPerReconnect * 1000,
    format: whole,
    target: false,
  },
  {
    figure: 'event-loop delay p99, drop → all open',
    unit: 'ms',
    kind: 'alone',
    value: (f) => f.loopDelayP99 - LOOP_RESOLUTION,
    format: fixed(1),
    target: true,
  },
  {
    figure: "time from the server's return to all open",
    unit: 's',
    kind: 'alone',
    value: (f) => f.allOpenAfter / 1000,
    format: fixed(2),
    target: true,
  },
  {
    figure: 'connections the server accepted, drop → all open',
    unit: '',
    kind: 'together',
    value: (f) => f.reconnectionsAccepted,
    format: whole,
    target: false,
  },
  {
    figure: '… the same, alone',
    unit: '',
    kind: 'alone',
    value: (f) => f.reconnectionsAccepted,
    format: whole,
    target: false,
  },
  {
    figure: 'TCP dials by the client, drop → all open',
    unit: '',
    kind: 'together',
    value: (f) => f.dials,
    format: whole,
    target: false,
  },
  {
    figure: 'waiting heap taken, after the drop',
    unit: 's',
    kind: 'heap',
    value: (f) => (f.waitingHeapAt === undefined ? undefined : f.waitingHeapAt / 1000),
    format: fixed(2),
    target: false,
    ratio: false,
  },
  {
    figure: 'TCP dials before the just-dropped heap was taken',
    unit: '',
    kind: 'heap',
    value: (f) => f.dialsBeforeDroppedHeap,
    format: whole,
    target: false,
    ratio: false,
  },
  {
    figure: 'sockets attempting (or open) when the waiting heap was taken',
    unit: '',
    kind: 'heap',
    value: (f) =>
      f.attemptingWhileWaiting === undefined ? undefined : f.attemptingWhileWaiting + (f.openWhileWaiting ?? 0),
    format: whole,
    target: false,
    ratio: false,
  },
];

/** Per round, in round order: `row`'s value for `subject`. */
function series(row: Row, subject: Subject): number[] {
  return result.rounds
    .filter((f) => f.kind === row.kind && f.subject === subject)
    .sort((a, b) => a.round - b.round)
    .map((f) => row.value(f) ?? NaN);
}

const describe = (xs: readonly number[], format: (n: number) => string): string =>
  xs.length === 0 ? '–' : `${format(median(xs))} (${format(Math.min(...xs))}–${format(Math.max(...xs))})`;

interface TableRow {
  readonly figure: string;
  readonly unit: string;
  readonly kind: RoundKind;
  readonly target: boolean;
  readonly perRound: Readonly<Record<Subject, readonly number[]>>;
  readonly medians: Readonly<Record<Subject, number>>;
  readonly bestPeer: Subject;
  /** redialer ÷ the best peer, round by round (the best peer by median). */
  readonly ratios: readonly number[];
}

const [ours, ...peers] = SUBJECTS;
const table: TableRow[] = rows.map((row) => {
  const perRound = Object.fromEntries(SUBJECTS.map((subject) => [subject, series(row, subject)])) as Record<
    Subject,
    number[]
  >;
  const medians = Object.fromEntries(SUBJECTS.map((subject) => [subject, median(perRound[subject])])) as Record<
    Subject,
    number
  >;
  const bestPeer = peers.reduce((best, peer) => (medians[peer] < medians[best] ? peer : best));
  const ratios = perRound[ours].map((x, i) => x / (perRound[bestPeer][i] ?? NaN));
  return {
    figure: row.figure,
    unit: row.unit,
    kind: row.kind,
    target: row.target,
    perRound,
    medians,
    bestPeer,
    ratios,
  };
});

const lines: string[] = [];
lines.push(
  `${String(sockets)} sockets per library, one loopback \`ws\` server that terminates them all and refuses for ${String(downtime)} ms (in the heap rounds until the heap is taken); ` +
    `median (min–max) of ${String(rounds)} rounds with every library at once for the heap, ${String(rounds)} at once for CPU, and ${String(rounds)} alone in rotation for the times and the event loop; Node ${process.version}. Command: \`${command}\`.`,
  '',
  `| figure | ${SUBJECTS.join(' | ')} | redialer ÷ best peer |`,
  `| --- | ${SUBJECTS.map(() => '---:').join(' | ')} | ---: |`,
);
rows.forEach((row, i) => {
  const t = table[i];
  if (t === undefined) return;
  const unit = row.unit === '' ? '' : ` (${row.unit})`;
  const cells = SUBJECTS.map((subject) => describe(t.perRound[subject], row.format));
  const verdict = row.target ? (median(t.ratios) <= 1 ? '' : ' **over 1**') : '';
  const ratio =
    row.ratio !== false && t.ratios.every(Number.isFinite)
      ? `${describe(t.ratios, fixed(2))} ÷ ${t.bestPeer}${verdict}`
      : '–';
  lines.push(`| ${row.figure}${unit} | ${cells.join(' | ')} | ${ratio} |`);
});
lines.push(
  '',
  `Plain \`ws\` socket, open, for reference: ${describe(result.wsHeapOpenPerSocket, whole)} B retained heap per socket.`,
  `reconnecting-websocket's first wait after a loss: ${whole(result.reconnectingWebSocketMinDelay.firstWait)} ms (${
    result.reconnectingWebSocketMinDelay.setting === 'drawn'
      ? 'its default, 1000 + Math.random() × 4000 drawn once in its process'
      : 'minReconnectionDelay given; its default is 1000 + Math.random() × 4000 drawn once per process, 3,000 on average'
  }).`,
  '',
  'Defaults (every library has `ws` as its WebSocket class; nothing else is set but as said of reconnecting-websocket above):',
  ...SUBJECTS.map((subject) => `- ${subject}: ${result.defaults[subject]}`),
);
const uncaught = result.rounds.filter((f) => f.uncaught.length > 0);
if (uncaught.length > 0) lines.push('', 'Exceptions that escaped a library (counted, not fatal):');
for (const f of uncaught) {
  lines.push(
    `- ${f.subject}, ${f.kind} round ${String(f.round + 1)}: ${String(f.uncaught.length)} uncaught exception(s), first: ${f.uncaught[0] ?? ''}`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
say(`websocket: ${seconds.toFixed(0)} s`);

mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
writeFileSync(
  join(process.cwd(), 'bench/results/websocket.json'),
  `${JSON.stringify({ environment: environment(), command, seconds, ...result, table }, null, 1)}\n`,
);
