/**
 * redialer/react on a server: react-dom/server renders the hooks with their server snapshots, without
 * subscribing to the source or arming a timer. And the external store the hooks share: one cached
 * value per change, subscribed on first use.
 */
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { Observable, defer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConnectionManager, connectionStatus } from '../../../src/index.js';
import type { ManagedChannel } from '../../../src/adapters/grpc/index.js';
import type { ReconnectingWebSocket } from '../../../src/adapters/websocket/index.js';
import {
  ConnectionBanner,
  observableStore,
  SERVER_STATUS,
  type StateSource,
  useConnectionState,
  useConnectionStatus,
  useRetryCountdown,
} from '../../../src/adapters/react/index.js';
import { createFakeConnector, createVirtualClock } from '../../../src/testing/index.js';

/** A manager waiting to retry, and a source over it that counts subscriptions to state$. */
function waitingSource() {
  const clock = createVirtualClock(1_000_000);
  const fake = createFakeConnector((attempt) => {
    attempt.fail(new Error('ECONNREFUSED'));
  });
  const manager = new ConnectionManager({ connector: fake.connector, scheduler: clock.scheduler, random: () => 0.5 });
  manager.connect();
  let subscriptions = 0;
  const source: StateSource = {
    state$: defer(() => {
      subscriptions += 1;
      return manager.state$;
    }),
    resetBackoff: () => {
      manager.resetBackoff();
    },
  };
  return { clock, manager, source, subscriptions: () => subscriptions };
}

function Details({ source }: { source: StateSource | null }) {
  const snapshot = useConnectionState(source);
  const status = useConnectionStatus(source);
  const seconds = useRetryCountdown(snapshot.state === 'TRANSIENT_FAILURE' ? snapshot.nextAttemptAt : undefined);
  return h(
    'p',
    null,
    `${snapshot.state} ${String(snapshot.attempt)} ${status.phase} ${String(status.visible)} ${String(seconds)}`,
  );
}

describe('redialer/react with react-dom/server', () => {
  it('renders the server snapshots: IDLE and a hidden "connecting" banner, with no subscription and no timer', () => {
    const { clock, manager, source, subscriptions } = waitingSource();
    expect(manager.snapshot.state).toBe('TRANSIENT_FAILURE');
    const timers = clock.pendingTimers();
    const html = renderToString(h('main', null, h(ConnectionBanner, { source }), h(Details, { source })));
    expect(html).toBe(
      '<main><div class="connection-banner" data-phase="connecting" data-visible="false">' +
        '<span role="status" aria-live="polite" aria-atomic="true"></span></div>' +
        '<p>IDLE 0 connecting false undefined</p></main>',
    );
    expect(subscriptions()).toBe(0);
    expect(clock.pendingTimers()).toBe(timers);
    manager.shutdown();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('renders without a source (a socket opened only in the browser)', () => {
    expect(renderToString(h(Details, { source: null }))).toBe('<p>IDLE 0 connecting false undefined</p>');
    expect(Object.isFrozen(SERVER_STATUS)).toBe(true);
  });
});

describe('the sources the hooks and connectionStatus read', () => {
  it('accept a ConnectionManager, a ManagedChannel and a ReconnectingWebSocket (checked by the compiler)', () => {
    const accept = (manager: ConnectionManager, channel: ManagedChannel, socket: ReconnectingWebSocket): unknown[] => {
      const sources: StateSource[] = [manager, channel, socket];
      return [
        ...sources,
        connectionStatus(manager.state$),
        connectionStatus(channel.state$),
        connectionStatus(socket.state$),
      ];
    };
    expect(typeof accept).toBe('function');
  });
});

describe('observableStore', () => {
  it('subscribes on first use, returns the same value until a change, notifies every listener, stops on complete', () => {
    let subscribed = 0;
    let push: ((value: { n: number }) => void) | undefined;
    let end: (() => void) | undefined;
    const source$ = new Observable<{ n: number }>((subscriber) => {
      subscribed += 1;
      subscriber.next({ n: 1 });
      push = (value) => {
        subscriber.next(value);
      };
      end = () => {
        subscriber.complete();
      };
    });
    const initial = { n: 0 };
    const store = observableStore(source$, initial);
    expect(subscribed).toBe(0);
    const first = store.getSnapshot();
    expect(first).toEqual({ n: 1 });
    expect(store.getSnapshot()).toBe(first);
    const calls: number[] = [];
    const stopA = store.subscribe(() => calls.push(store.getSnapshot().n));
    store.subscribe(() => calls.push(-store.getSnapshot().n));
    expect(subscribed).toBe(1);
    push!({ n: 2 });
    stopA();
    push!({ n: 3 });
    expect(calls).toEqual([2, -2, -3]);
    end!();
    store.subscribe(() => undefined);
    expect(subscribed).toBe(1);
    expect(store.getSnapshot()).toEqual({ n: 3 });
  });
});
