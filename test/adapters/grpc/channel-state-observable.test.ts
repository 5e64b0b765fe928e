import { connectivityState as S, credentials } from '@grpc/grpc-js';
import { filter, firstValueFrom, lastValueFrom, type VirtualTimeScheduler, timeout, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createTestClient, startTestServer } from '../../support/grpc/service.js';
import { channelState, type WatchableChannel } from '../../../src/adapters/grpc/index.js';
import { createVirtualClock } from '../../../src/testing/index.js';

interface Watcher {
  readonly currentState: S;
  readonly callback: (error?: Error) => void;
}

/**
 * A channel with grpc-js's watch semantics: a watch fires once, on the first change away from the
 * state it was armed with, and not when the state already differs at registration; it cannot be
 * removed. `getConnectivityState(true)` moves IDLE -> CONNECTING synchronously but returns IDLE, as
 * grpc-js does. State changes are scheduled on a virtual clock.
 */
class FakeChannel implements WatchableChannel {
  state: S = S.IDLE;
  watchers: Watcher[] = [];
  connectRequests = 0;
  /** Runs inside the next getConnectivityState(false) call, after the read (a change that races the watch). */
  afterNextRead: (() => void) | undefined;
  /** Runs at the start of the next watchConnectivityState call (a change between the read and the watch). */
  beforeNextWatch: (() => void) | undefined;

  constructor(private readonly scheduler: VirtualTimeScheduler) {}

  getConnectivityState(tryToConnect: boolean): S {
    const state = this.state;
    if (tryToConnect) {
      this.connectRequests += 1;
      if (state === S.IDLE) this.set(S.CONNECTING);
    } else if (this.afterNextRead !== undefined) {
      const hook = this.afterNextRead;
      this.afterNextRead = undefined;
      hook();
    }
    return state;
  }

  watchConnectivityState(currentState: S, deadline: Date | number, callback: (error?: Error) => void): void {
    if (this.state === S.SHUTDOWN) throw new Error('Channel has been shut down');
    expect(deadline).toBe(Infinity); // no deadline, hence no timer
    const hook = this.beforeNextWatch;
    this.beforeNextWatch = undefined;
    hook?.();
    this.watchers.push({ currentState, callback });
  }

  set(state: S): void {
    this.state = state;
    for (const watcher of [...this.watchers]) {
      if (watcher.currentState !== state) {
        this.watchers.splice(this.watchers.indexOf(watcher), 1);
        watcher.callback();
      }
    }
  }

  /** Schedules `state` at virtual time `at`. */
  at(at: number, state: S): void {
    this.scheduler.schedule(() => {
      this.set(state);
    }, at - this.scheduler.now());
  }
}

function setup() {
  const clock = createVirtualClock();
  const channel = new FakeChannel(clock.scheduler);
  return { clock, channel };
}

describe('channelState: a grpc-js channel connectivity as an Observable', () => {
  it('emits the current state, then every change, and completes on SHUTDOWN', () => {
    const { clock, channel } = setup();
    const seen: string[] = [];
    let completed = false;
    channelState(channel).subscribe({ next: (s) => seen.push(s), complete: () => (completed = true) });
    channel.at(10, S.CONNECTING);
    channel.at(20, S.READY);
    channel.at(30, S.IDLE);
    channel.at(40, S.SHUTDOWN);
    clock.advanceTo(35);
    expect(seen).toEqual(['IDLE', 'CONNECTING', 'READY', 'IDLE']);
    expect(completed).toBe(false);
    clock.advanceTo(40);
    expect(seen).toEqual(['IDLE', 'CONNECTING', 'READY', 'IDLE', 'SHUTDOWN']);
    expect(completed).toBe(true);
    expect(channel.watchers).toHaveLength(0);
  });

  it('with connect: asks the channel to connect and catches the CONNECTING that getConnectivityState(true) causes before the watch', () => {
    const { channel } = setup();
    const seen: string[] = [];
    channelState(channel, { connect: true }).subscribe((s) => seen.push(s));
    expect(channel.connectRequests).toBe(1);
    // grpc-js returned IDLE although the channel was already CONNECTING when the watch was armed.
    expect(seen).toEqual(['IDLE', 'CONNECTING']);
    channel.set(S.READY);
    expect(seen).toEqual(['IDLE', 'CONNECTING', 'READY']);
  });

  it('does not miss a change between the read and the watch, even one that later returns to the watched state', () => {
    const { clock, channel } = setup();
    channel.state = S.READY;
    const seen: string[] = [];
    channelState(channel).subscribe((s) => seen.push(s));
    // While the next watch is being armed for IDLE, the channel moves on to CONNECTING.
    channel.afterNextRead = () => {
      channel.state = S.CONNECTING;
    };
    channel.at(10, S.IDLE);
    clock.advanceTo(10);
    expect(seen).toEqual(['READY', 'IDLE', 'CONNECTING']);
    // Back to IDLE: a watch armed only for IDLE would not fire; the one armed for CONNECTING does.
    channel.at(20, S.IDLE);
    clock.advanceTo(20);
    expect(seen).toEqual(['READY', 'IDLE', 'CONNECTING', 'IDLE']);
  });

  it('catches a change that lands between the read and the watch registration', () => {
    const { channel } = setup();
    channel.state = S.READY;
    channel.beforeNextWatch = () => {
      channel.set(S.IDLE);
    };
    const seen: string[] = [];
    channelState(channel).subscribe((s) => seen.push(s));
    // The watch was registered for READY while the channel was already IDLE: grpc-js would stay silent.
    expect(seen).toEqual(['READY', 'IDLE']);
    // Back to READY: the stale READY watch does not fire, the IDLE one does.
    channel.set(S.READY);
    expect(seen).toEqual(['READY', 'IDLE', 'READY']);
  });

  it('never emits the same state twice in a row', () => {
    const { clock, channel } = setup();
    const seen: string[] = [];
    channelState(channel).subscribe((s) => seen.push(s));
    channel.at(10, S.CONNECTING);
    channel.at(10, S.CONNECTING);
    clock.advanceTo(10);
    expect(seen).toEqual(['IDLE', 'CONNECTING']);
  });

  it('shares one watch between subscribers and leaves no timer and at most that one inert watch after unsubscribing', () => {
    const { clock, channel } = setup();
    const a: string[] = [];
    const b: string[] = [];
    const first = channelState(channel).subscribe((s) => a.push(s));
    const second = channelState(channel).subscribe((s) => b.push(s));
    expect(channel.watchers).toHaveLength(1);
    first.unsubscribe();
    second.unsubscribe();
    expect(clock.pendingTimers()).toBe(0);
    expect(channel.watchers).toHaveLength(1);
    // Resubscribing many times reuses the pending watch instead of piling up new ones.
    for (let i = 0; i < 10; i++) channelState(channel).subscribe().unsubscribe();
    expect(channel.watchers).toHaveLength(1);
    // The next change releases it, and nothing re-arms without subscribers.
    channel.set(S.CONNECTING);
    expect(channel.watchers).toHaveLength(0);
    expect(a).toEqual(['IDLE']);
    expect(b).toEqual(['IDLE']);
  });

  it('a channel already shut down emits SHUTDOWN and completes without arming a watch', () => {
    const { channel } = setup();
    channel.state = S.SHUTDOWN;
    const seen: string[] = [];
    let completed = false;
    channelState(channel).subscribe({ next: (s) => seen.push(s), complete: () => (completed = true) });
    expect(seen).toEqual(['SHUTDOWN']);
    expect(completed).toBe(true);
    expect(channel.watchers).toHaveLength(0);
  });

  it('accepts a grpc-js Client (through getChannel) and rejects anything else, naming the value', () => {
    const { channel } = setup();
    const seen: string[] = [];
    channelState({ getChannel: () => channel } as never).subscribe((s) => seen.push(s));
    expect(seen).toEqual(['IDLE']);
    expect(() => channelState({} as never)).toThrow(/grpc-js Channel or Client.*an object/);
    expect(() => channelState(channel, { connect: 'yes' as never })).toThrow(/"connect"/);
  });
});

describe('channelState against a real grpc-js client', () => {
  it('reports IDLE, CONNECTING, READY, IDLE on a server crash, and SHUTDOWN when the client closes', async () => {
    const server = await startTestServer();
    const client = createTestClient(server.address, credentials.createInsecure());
    try {
      const all = lastValueFrom(channelState(client, { connect: true }).pipe(toArray(), timeout(5000)));
      await firstValueFrom(
        channelState(client).pipe(
          filter((s) => s === 'READY'),
          timeout(5000),
        ),
      );
      await server.kill();
      await firstValueFrom(
        channelState(client).pipe(
          filter((s) => s !== 'READY'),
          timeout(5000),
        ),
      );
      client.close();
      const states = await all;
      expect(states.slice(0, 4)).toEqual(['IDLE', 'CONNECTING', 'READY', 'IDLE']);
      expect(states.at(-1)).toBe('SHUTDOWN');
    } finally {
      client.close();
      await server.close();
    }
  });
});
