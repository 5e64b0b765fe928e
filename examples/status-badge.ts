/**
 * A connection status badge in plain DOM: "Connected", "Connecting…", or "Reconnecting in 3 s ·
 * Retry now", for anything with redialer's `state$` (a ConnectionManager, a ManagedChannel, a
 * ReconnectingWebSocket).
 */
import type { Observable } from 'rxjs';
import type { ConnectionSnapshot } from 'redialer';

/** What the badge needs: the states, and "Retry now". */
export interface BadgeSource {
  readonly state$: Observable<ConnectionSnapshot>;
  resetBackoff(): void;
}

/** Renders the badge into `element` until the returned function is called. */
export function mountStatusBadge(element: HTMLElement, source: BadgeSource): () => void {
  const label = document.createElement('span');
  const retry = document.createElement('button');
  retry.type = 'button';
  retry.textContent = 'Retry now';
  retry.addEventListener('click', () => {
    source.resetBackoff();
  });
  element.replaceChildren(label, ' ', retry);

  let snapshot: ConnectionSnapshot | undefined;
  const render = (): void => {
    if (snapshot === undefined) return;
    element.dataset['state'] = snapshot.state;
    retry.hidden = snapshot.state !== 'TRANSIENT_FAILURE';
    switch (snapshot.state) {
      case 'READY':
        label.textContent = 'Connected';
        break;
      case 'CONNECTING':
        label.textContent = 'Connecting…';
        break;
      case 'TRANSIENT_FAILURE':
        label.textContent = `Reconnecting in ${String(Math.max(0, Math.ceil((snapshot.nextAttemptAt - Date.now()) / 1000)))} s`;
        break;
      case 'IDLE':
        label.textContent = 'Not connected';
        break;
      case 'SHUTDOWN':
        label.textContent = 'Closed';
        break;
    }
  };
  const subscription = source.state$.subscribe((s) => {
    snapshot = s;
    render();
  });
  const ticker = setInterval(render, 250); // the countdown
  return () => {
    clearInterval(ticker);
    subscription.unsubscribe();
  };
}
