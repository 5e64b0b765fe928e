/**
 * A raw TCP peer that holds back its HTTP/2 SETTINGS, for the tests of "READY comes with the server's
 * SETTINGS, not with the TCP connection": the peer accepts and stays silent; the check waits until a
 * client has connected, sees it still CONNECTING a while later, sends the frame, and then sees READY.
 */
import type { Socket } from 'node:net';
import type { Observable } from 'rxjs';
import { expect, vi } from 'vitest';
import type { ConnectionSnapshot } from '../../../src/index.js';
import { until } from './record.js';

export interface HeldSettings {
  /** The listener's handler for each accepted socket; the newest one is the one `frame` goes to. */
  readonly onSocket: (socket: Socket) => void;
  /**
   * Waits for a client's connection, waits `holdMs` more and expects `states()` to be only IDLE and
   * CONNECTING, then writes `frame` and waits for READY on `state$`.
   */
  expectReadyOnlyOnceSent<C>(
    state$: Observable<ConnectionSnapshot<C>>,
    states: () => readonly string[],
    holdMs: number,
  ): Promise<void>;
}

/** A peer that sends `frame` (the server's SETTINGS, and whatever else its preface needs) only when told. */
export function heldSettings(frame: Buffer): HeldSettings {
  let newest: Socket | undefined;
  return {
    onSocket: (socket) => {
      newest = socket;
    },
    async expectReadyOnlyOnceSent(state$, states, holdMs) {
      await vi.waitFor(() => {
        expect(newest).toBeDefined();
      });
      // TCP is up, yet no READY.
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      expect(states()).toEqual(['IDLE', 'CONNECTING']);
      newest?.write(frame);
      await until(state$, (s) => s.state === 'READY');
    },
  };
}
