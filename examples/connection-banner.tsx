/**
 * A connection banner in React with redialer's `ConnectionBanner` over a socket the page owns:
 * nothing for a blip under 5 s, then "Reconnecting in 3 s · Retry now"; "Connecting in 3 s · Retry
 * now" when the first connection keeps failing; "Waiting for network…" at once when the browser is
 * offline; "Connection lost: … · Try again" when it gave up; a short "Reconnected" after an outage
 * that was shown. Screen readers hear the phase changes only, never the countdown. The CSS reserves
 * the banner's line, so that the page does not shift when it shows.
 */
import { ConnectionBanner, useConnection } from 'redialer/react';
import { ReconnectingWebSocket } from 'redialer/websocket';

/** The banner's CSS: its line is always there (empty while hidden), so nothing moves when it shows. */
export const BANNER_CSS = `
.connection-banner { height: 1.75em; line-height: 1.75em; padding: 0.25em 0.5em; overflow: hidden; }
.connection-banner button { font: inherit; line-height: 1.25; padding: 0 0.5em; }
.connection-banner .countdown { display: inline-block; min-width: 4.5em; } /* "…" to " in 120 s": the button stays put */
.connection-banner[data-visible="true"] { background: #fff3cd; }
.connection-banner[data-phase="failed"][data-visible="true"] { background: #f8d7da; }
`;

/** A page with one socket (one under StrictMode too) and its banner above the content. */
export function FeedPage({ url, children }: { url: string; children?: React.ReactNode }) {
  const socket = useConnection(() => new ReconnectingWebSocket(url), [url]);
  return (
    <>
      <style>{BANNER_CSS}</style>
      <ConnectionBanner source={socket} />
      <main>{children}</main>
    </>
  );
}
