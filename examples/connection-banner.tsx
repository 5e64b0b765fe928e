/**
 * A connection banner in React with redialer's hooks: nothing for a blip under 5 s, then
 * "Reconnecting in 3 s · Retry now"; "Waiting for network…" at once when the browser is offline;
 * "Connection lost: …" when it gave up; and a short "Reconnected" after an outage that was shown.
 * The banner lives in an `aria-live` region that is always in the page, so screen readers announce
 * each change.
 *
 * In your project: `import { useConnectionStatus, useRetryCountdown } from 'redialer/react';`
 */
import { useEffect, useRef, useState } from 'react';
import {
  type ConnectionStatusView,
  type StateSource,
  useConnectionStatus,
  useRetryCountdown,
} from '../src/adapters/react/index.js';

/** Props of {@link ConnectionBanner}. */
export interface ConnectionBannerProps {
  /** A ConnectionManager, a ManagedChannel or a ReconnectingWebSocket (null while there is none yet). */
  readonly source: StateSource | null;
  /** How long an outage stays hidden. @defaultValue 5000 */
  readonly graceMs?: number;
  /** How long "Reconnected" stays after a shown outage. @defaultValue 3000 */
  readonly reconnectedMs?: number;
}

function describe(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/** The banner's words for a shown status. */
export function bannerText(status: ConnectionStatusView, seconds: number | undefined): string {
  switch (status.phase) {
    case 'offline':
      return 'Waiting for network…';
    case 'failed':
      return `Connection lost: ${describe(status.reason)}`;
    case 'unavailable':
      return `Service unavailable: ${describe(status.reason)}`;
    case 'connected':
      return 'Connected';
    case 'connecting':
    case 'reconnecting': {
      const verb = status.phase === 'connecting' ? 'Connecting' : 'Reconnecting';
      return seconds === undefined || seconds === 0 ? `${verb}…` : `${verb} in ${String(seconds)} s`;
    }
  }
}

/** The banner: an always-present live region whose text changes with the connection. */
export function ConnectionBanner({ source, graceMs = 5000, reconnectedMs = 3000 }: ConnectionBannerProps) {
  const status = useConnectionStatus(source, { graceMs });
  const seconds = useRetryCountdown(status.retryAt);
  // "Reconnected" for a moment after an outage the user was shown (the `restored` event's moment).
  const [reconnected, setReconnected] = useState(false);
  const shown = useRef(false);
  useEffect(() => {
    if (status.phase !== 'connected') {
      if (status.visible) shown.current = true;
      setReconnected(false);
      return undefined;
    }
    if (!shown.current) return undefined;
    shown.current = false;
    setReconnected(true);
    const timer = setTimeout(() => {
      setReconnected(false);
    }, reconnectedMs);
    return () => {
      clearTimeout(timer);
    };
  }, [status, reconnectedMs]);

  const retryable = status.visible && (status.phase === 'connecting' || status.phase === 'reconnecting');
  return (
    <div
      className="connection-banner"
      role="status"
      aria-live="polite"
      data-phase={status.phase}
      data-visible={String(status.visible)}
    >
      {status.visible ? <span className="text">{bannerText(status, seconds)}</span> : null}
      {retryable ? (
        <>
          {' · '}
          <button type="button" onClick={status.retryNow}>
            Retry now
          </button>
        </>
      ) : null}
      {reconnected && !status.visible ? <span className="text">Reconnected</span> : null}
    </div>
  );
}
