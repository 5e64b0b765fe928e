/**
 * React hooks for connection state (React ≥ 18, an optional peer): the snapshot, what to show
 * (phase, grace period, "Retry now") and a countdown, all on `useSyncExternalStore` — server-rendering
 * safe, and one cached value per source so that components never tear; the events to announce
 * (`useConnectionEvents`), and a connection the component owns, one under StrictMode
 * (`useConnection`).
 * @module redialer/react
 */
export { useConnectionState } from './use-connection-state.js';
export {
  useConnectionStatus,
  SERVER_STATUS,
  type ConnectionStatusView,
  type UseConnectionStatusOptions,
} from './use-connection-status.js';
export { useRetryCountdown, type UseRetryCountdownOptions } from './use-retry-countdown.js';
export { useConnection, type Closable } from './use-connection.js';
export {
  ConnectionBanner,
  CONNECTION_BANNER_TEXT,
  type ConnectionBannerProps,
  type ConnectionBannerText,
} from './connection-banner.js';
export { useConnectionEvents, type UseConnectionEventsOptions } from './use-connection-events.js';
export { observableStore, type ExternalStore } from './external-store.js';
export { SERVER_SNAPSHOT, type StateSource } from './state-source.js';
