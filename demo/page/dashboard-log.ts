/**
 * The dashboard's log, without the DOM: the page's own transitions and the demo's, on one clock, the
 * demo's, and shown as seconds since the demo started (as the terminal prints them).
 *
 * The page cannot read the demo's clock, only its own, so it carries the demo's clock over once, from
 * the moment it was served: the demo writes its time into the page's HTML as it sends it, and the page
 * pairs that with its own steady clock (`performance.now()`) at the moment the response arrived. From
 * then on, "now on the demo's clock" is that reading plus the time the page has counted since, so the
 * page's transitions are never stamped before the demo served the page (so never before the demo
 * started), and never run backwards. A time the demo sends later (a status's `now`) can only move
 * the clock forward: the page cannot be earlier than a time it has heard of. Nothing is ever
 * estimated from when a message is handled: a page busy at load (its storm simulation on a slow
 * machine) handles the first message late, and a clock set from that was behind by the delay, which
 * put the page's first transition before the demo's start.
 */
import type { ConnectivityState } from '../../src/index.js';
import { formatElapsed, type ServerMessage, type TimelineEntry } from '../live-protocol.js';

/** A transition of the page's own connection. */
export interface PageEntry {
  readonly at: number;
  readonly client: 'page';
  readonly state: ConnectivityState;
  readonly detail: string;
}

/** A line of the log: the demo's or the page's. */
export type LogEntry = TimelineEntry | PageEntry;

/** What the demo said when it served the page (its HTML carries it), and when the page arrived. */
export interface ServedAt {
  /** When the demo started, on the demo's clock (ms). */
  readonly startedAt: number;
  /** When the demo served the page, on the demo's clock (ms). */
  readonly at: number;
  /** When the page's response arrived, on the page's own clock (ms): its first byte, or later. */
  readonly arrivedAt: number;
}

/** Options of {@link DashboardLog}. */
export interface DashboardLogOptions {
  /** The page's own steady clock (ms): `performance.now` in the page. */
  readonly now: () => number;
  readonly served: ServedAt;
}

/** The log's entries, in time order, and the one clock they are stamped on. */
export class DashboardLog {
  readonly #now: () => number;
  readonly #startedAt: number;
  readonly #entries: LogEntry[] = [];
  /** The demo's clock minus the page's: set when served, raised by the times the demo sends. */
  #offset: number;
  /** The last time read, so that the clock never runs backwards whatever the page's clock does. */
  #last = -Infinity;

  constructor(options: DashboardLogOptions) {
    this.#now = options.now;
    this.#startedAt = options.served.startedAt;
    this.#offset = options.served.at - options.served.arrivedAt;
  }

  /** Now, on the demo's clock (ms): what every time on the page is read against. */
  now(): number {
    this.#last = Math.max(this.#last, this.#now() + this.#offset);
    return this.#last;
  }

  /** Records a transition of the page's own connection, `at` on the demo's clock (from {@link now}). */
  page(at: number, state: ConnectivityState, detail: string): void {
    this.#insert({ at, client: 'page', state, detail });
  }

  /** Takes a message from the demo: the hello's history, or a status's new entry. */
  receive(message: ServerMessage): void {
    switch (message.type) {
      case 'hello':
        this.#heard(message.now);
        // The demo's history replaces what the page had of it (the page may have missed some while away).
        this.#entries.splice(
          0,
          this.#entries.length,
          ...[...this.#entries.filter((e) => e.client === 'page'), ...message.timeline].sort((a, b) => a.at - b.at),
        );
        break;
      case 'status':
        this.#heard(message.now);
        if (message.entry !== null) this.#insert(message.entry);
        break;
      case 'phase':
      case 'summary':
        break;
    }
  }

  /** The last `count` lines, newest first. */
  lines(count = 40): string[] {
    return this.#entries
      .slice(-count)
      .reverse()
      .map(
        (e) => `${formatElapsed(e.at - this.#startedAt)}  ${e.client.padEnd(9)}  ${e.state.padEnd(17)}  ${e.detail}`,
      );
  }

  /** The demo sent `demoNow`: the page's reading of its clock must not be earlier. */
  #heard(demoNow: number): void {
    this.#offset = Math.max(this.#offset, demoNow - this.#now());
  }

  /** Inserts in time order, after the entries of the same time (most arrive in order, at the end). */
  #insert(entry: LogEntry): void {
    let index = this.#entries.length;
    while (index > 0 && (this.#entries[index - 1]?.at ?? -Infinity) > entry.at) index -= 1;
    this.#entries.splice(index, 0, entry);
  }
}
