/**
 * The dashboard's log, without the DOM: the page's own transitions and the demo's, and the times
 * they are shown at (seconds since the demo started, as the terminal prints them).
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

/** Options of {@link DashboardLog}. */
export interface DashboardLogOptions {
  /** The page's clock (ms). */
  readonly now: () => number;
}

/** The log's entries and clock. */
export class DashboardLog {
  readonly #now: () => number;
  readonly #entries: LogEntry[] = [];
  /** Server clock minus this page's clock. */
  #offset = 0;
  /** When the demo started, on this page's clock (the log counts from it, as the terminal does). */
  #startedAt: number | null = null;

  constructor(options: DashboardLogOptions) {
    this.#now = options.now;
  }

  /** Now, on the page's clock. */
  now(): number {
    return this.#now();
  }

  /** A time on the server's clock, on this page's clock. */
  local(serverTime: number): number {
    return serverTime - this.#offset;
  }

  /** Records a transition of the page's own connection. */
  page(at: number, state: ConnectivityState, detail: string): void {
    this.#entries.push({ at, client: 'page', state, detail });
  }

  /** Takes a message from the server: the hello's history, or a status's new entry. */
  receive(message: ServerMessage): void {
    switch (message.type) {
      case 'hello':
        this.#offset = message.now - this.#now();
        this.#startedAt = message.startedAt - this.#offset;
        this.#entries.splice(
          0,
          this.#entries.length,
          ...this.#entries.filter((e) => e.client === 'page'),
          ...message.timeline.map((e) => ({ ...e, at: this.local(e.at) })),
        );
        this.#entries.sort((a, b) => a.at - b.at);
        break;
      case 'status':
        this.#offset = message.now - this.#now();
        if (message.entry !== null) this.#entries.push({ ...message.entry, at: this.local(message.entry.at) });
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
      .map((e) => `${this.#clock(e.at)}  ${e.client.padEnd(9)}  ${e.state.padEnd(17)}  ${e.detail}`);
  }

  /** Seconds since the demo started, as the terminal prints them (the page's clock until the first hello). */
  #clock(ms: number): string {
    return formatElapsed(ms - (this.#startedAt ?? this.#entries[0]?.at ?? ms));
  }
}
