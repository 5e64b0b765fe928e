/**
 * Counting the timers and TCP handles alive in this process (`process.getActiveResourcesInfo()`), for
 * the leak checks: a baseline once setup's short-lived timers have ended, and the excess over it.
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { Cleanup } from './cleanup.js';
import { listenOnLoopback, portOf, track } from './loopback.js';
import { refusedPort } from './refused-port.js';

const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));
/** Timers and TCP handles alive in this process, by kind. */
export function countResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'Timeout' || kind.startsWith('TCP')) counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}
/**
 * The counts once they have stayed the same for 200 ms: setup leaves short-lived timers behind (the
 * servers' own), which must not enter the baseline, or a leaked timer could hide in their place.
 */
export async function settled(): Promise<Record<string, number>> {
  let last = JSON.stringify(countResources());
  for (let stable = 0, i = 0; stable < 10 && i < 300; i += 1) {
    await tick(20);
    const now = JSON.stringify(countResources());
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  return JSON.parse(last) as Record<string, number>;
}
/**
 * Waits (up to 3 s) until nothing outnumbers `baseline` for five checks in a row; returns what still
 * does (`{}` when nothing leaked).
 */
export async function excessOver(baseline: Record<string, number>): Promise<Record<string, number>> {
  const excess = () =>
    Object.fromEntries(
      Object.entries(countResources())
        .map(([kind, n]): [string, number] => [kind, n - (baseline[kind] ?? 0)])
        .filter(([, n]) => n > 0),
    );
  for (let clean = 0, i = 0; clean < 5 && i < 300; i += 1) {
    await tick();
    clean = Object.keys(excess()).length === 0 ? clean + 1 : 0;
  }
  return excess();
}
/** A TCP listener that accepts and never answers (reads and drops, so the client's FIN is seen). */
export async function silentListener(cleanup: Cleanup): Promise<{ port: number }> {
  const sockets = new Set<Socket>();
  const net: NetServer = createServer((socket) => {
    track(sockets, socket);
    socket.resume();
  });
  await listenOnLoopback(net, sockets, cleanup);
  return { port: portOf(net) };
}

/** What a leak check dials besides its server, and the counts to compare with at the end. */
export interface LeakCheck {
  /** A {@link silentListener}'s port: an attempt there is still connecting when the test closes it. */
  readonly silentPort: number;
  /** A refused port: an attempt there fails at once, and the client waits to retry. */
  readonly refusedPort: number;
  /** The {@link settled} counts with the server, the listener and the test's cleanup in place. */
  readonly before: Record<string, number>;
}

/**
 * The setup of a leak check once the test's server is up: `closeServer` joins `cleanup`, a silent
 * listener and a refused port are opened for the attempts that must not finish, and the baseline is
 * taken with all of them in it. The test then opens its clients, closes them and expects
 * `excessOver(before)` to be `{}`.
 */
export async function leakCheck(cleanup: Cleanup, closeServer: () => unknown): Promise<LeakCheck> {
  cleanup.push(closeServer);
  const silent = await silentListener(cleanup);
  const refused = await refusedPort();
  return { silentPort: silent.port, refusedPort: refused, before: await settled() };
}
