/**
 * `ConnectionBanner`: an unstyled, accessible banner for every phase of a connection. Screen readers
 * hear phase changes only: the live region holds the phase's sentence ("Reconnecting", "Waiting for
 * network…"), never the countdown, which sits beside it ("in 3 s") and can be read but is not
 * announced; a new attempt within the same outage announces nothing. The banner's element is always
 * in the page (an empty live region while hidden), so that a page can reserve its space and nothing
 * shifts when it shows.
 * @module
 */
import { createElement as h, Fragment, type ReactElement, useEffect, useRef, useState } from 'react';
import type { ConnectionPhase } from '../../core/connection-status.js';
import type { StateSource } from './state-source.js';
import { type ConnectionStatusView, useConnectionStatus } from './use-connection-status.js';
import { useRetryCountdown } from './use-retry-countdown.js';

/** The words of a {@link ConnectionBanner}; each may be replaced (another language, another tone). */
export interface ConnectionBannerText {
  /** The sentence announced for a phase (without the countdown), from the status and its reason. */
  readonly phase: (phase: Exclude<ConnectionPhase, 'connected'>, reason: string) => string;
  /** After the phase's sentence while a retry is pending: " in 3 s"; with no time left, "…". */
  readonly countdown: (seconds: number | undefined) => string;
  /** Announced for a moment after an outage that was shown. */
  readonly reconnected: string;
  /** Announced for a moment when a first connection that was shown as `connecting` is made. */
  readonly connected: string;
  /** The button that attempts now (connecting, reconnecting). */
  readonly retryNow: string;
  /** The button that starts again after the source gave up (failed). */
  readonly tryAgain: string;
}

/** The banner's English words. */
export const CONNECTION_BANNER_TEXT: ConnectionBannerText = Object.freeze({
  phase: (phase: Exclude<ConnectionPhase, 'connected'>, reason: string): string => {
    switch (phase) {
      case 'connecting':
        return 'Connecting';
      case 'reconnecting':
        return 'Reconnecting';
      case 'offline':
        return 'Waiting for network…';
      case 'unavailable':
        return `Service unavailable: ${reason}`;
      case 'failed':
        return `Connection lost: ${reason}`;
    }
  },
  countdown: (seconds: number | undefined): string =>
    seconds === undefined || seconds === 0 ? '…' : ` in ${String(seconds)} s`,
  reconnected: 'Reconnected',
  connected: 'Connected',
  retryNow: 'Retry now',
  tryAgain: 'Try again',
});

/** Props of {@link ConnectionBanner}. */
export interface ConnectionBannerProps {
  /** A ConnectionManager, a ManagedChannel, a ReconnectingWebSocket… (null while there is none yet). */
  readonly source: StateSource | null;
  /** How long an outage stays hidden. @defaultValue 5000 */
  readonly graceMs?: number;
  /** How long "Reconnected" stays after a shown outage. @defaultValue 3000 */
  readonly reconnectedMs?: number;
  /**
   * What "Try again" does after the source gave up (failed). @defaultValue the source's `reconnect()`
   * where it has one (ReconnectingWebSocket); without either, no button
   */
  readonly onTryAgain?: () => void;
  /** The words. @defaultValue {@link CONNECTION_BANNER_TEXT} */
  readonly text?: Partial<ConnectionBannerText>;
  /** The class of the banner's element. @defaultValue 'connection-banner' */
  readonly className?: string;
}

function describeReason(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/**
 * What shows for `reconnectedMs` after an outage that was shown ends: `reconnected`, or `connected`
 * when what was shown was a first connection; undefined otherwise.
 */
function useBackAgain(status: ConnectionStatusView, reconnectedMs: number): 'reconnected' | 'connected' | undefined {
  const [back, setBack] = useState<'reconnected' | 'connected' | undefined>(undefined);
  const shown = useRef<ConnectionPhase | undefined>(undefined);
  useEffect(() => {
    if (status.phase !== 'connected') {
      if (status.visible && shown.current !== 'reconnecting') {
        shown.current = status.phase === 'connecting' ? 'connecting' : 'reconnecting';
      }
      setBack(undefined);
      return undefined;
    }
    if (shown.current === undefined) return undefined;
    setBack(shown.current === 'connecting' ? 'connected' : 'reconnected');
    shown.current = undefined;
    const timer = setTimeout(() => {
      setBack(undefined);
    }, reconnectedMs);
    return () => {
      clearTimeout(timer);
    };
  }, [status, reconnectedMs]);
  return back;
}

/**
 * A banner for every phase: hidden for a blip under `graceMs`; "Connecting in 3 s · Retry now" for a
 * first connection that keeps failing; "Reconnecting in 3 s · Retry now"; "Waiting for network…" at
 * once when offline; "Service unavailable: …"; "Connection lost: … · Try again" when the source gave
 * up; "Reconnected" for a moment after a shown outage ("Connected" after a shown first connection). Unstyled: its element carries `data-phase` and
 * `data-visible` for the page's CSS; the live region (`role="status"`) is its first child.
 *
 * @example
 * ```tsx
 * import { ConnectionBanner, useConnection } from 'redialer/react';
 * import { ReconnectingWebSocket } from 'redialer/websocket';
 *
 * function App() {
 *   const socket = useConnection(() => new ReconnectingWebSocket('wss://example.test/feed'), []);
 *   return <ConnectionBanner source={socket} />;
 * }
 * ```
 */
export function ConnectionBanner(props: ConnectionBannerProps): ReactElement {
  const { source, graceMs = 5000, reconnectedMs = 3000, className = 'connection-banner' } = props;
  const text: ConnectionBannerText = { ...CONNECTION_BANNER_TEXT, ...props.text };
  const status = useConnectionStatus(source, { graceMs });
  const seconds = useRetryCountdown(status.retryAt);
  const back = useBackAgain(status, reconnectedMs);
  const phase = status.phase;
  const shown = status.visible && phase !== 'connected';
  const announced = shown
    ? text.phase(phase, describeReason(status.reason))
    : back !== undefined && phase === 'connected'
      ? text[back]
      : '';
  const waiting = shown && (phase === 'connecting' || phase === 'reconnecting');
  const tryAgain =
    props.onTryAgain ??
    (typeof (source as { reconnect?: unknown } | null)?.reconnect === 'function'
      ? () => {
          (source as unknown as { reconnect(): void }).reconnect();
        }
      : undefined);
  const action = waiting
    ? h('button', { type: 'button', onClick: status.retryNow }, text.retryNow)
    : shown && phase === 'failed' && tryAgain !== undefined
      ? h('button', { type: 'button', onClick: tryAgain }, text.tryAgain)
      : null;
  return h(
    'div',
    { className, 'data-phase': phase, 'data-visible': String(status.visible) },
    // Always present, so that assistive technology is watching it before anything is said in it.
    h('span', { role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' }, announced),
    waiting ? h('span', { className: 'countdown' }, text.countdown(seconds)) : null,
    action === null ? null : h(Fragment, null, ' · ', action),
  );
}
