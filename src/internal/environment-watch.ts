/**
 * Browser awareness: whether the page is offline, and the moments worth reconnecting at once (back
 * online; a hidden tab shown again). Reads only what the global scope offers, so it is a no-op where
 * there is no window (Node), and works in workers (online/offline without visibility).
 * @module
 */

/** A minimal event target. */
export interface EventTargetLike {
  /** Starts calling `listener` on events of `type`. */
  addEventListener(type: string, listener: () => void): void;
  /** Stops calling a listener given to `addEventListener`. */
  removeEventListener(type: string, listener: () => void): void;
}

/** The parts of a global scope that the watch reads; `globalThis` in a browser. */
export interface EnvironmentLike {
  readonly navigator?: { readonly onLine?: boolean } | undefined;
  readonly document?: (EventTargetLike & { readonly visibilityState?: string }) | undefined;
  /** `window.addEventListener`, for the `online` and `offline` events. */
  readonly addEventListener?: EventTargetLike['addEventListener'];
  /** `window.removeEventListener`. */
  readonly removeEventListener?: EventTargetLike['removeEventListener'];
}

/** What the watch reports. */
export interface EnvironmentHandlers {
  /** The page came back online. */
  online(): void;
  /** The page went offline. */
  offline(): void;
  /** A hidden page became visible. */
  visible(): void;
  /** A frozen page runs again (the Page Lifecycle API's `resume`): its timers did not run meanwhile. */
  resumed?(): void;
}

/** Whether `env` says the page is offline (only an explicit `navigator.onLine === false` counts). */
export function isOffline(env: EnvironmentLike | undefined): boolean {
  return env?.navigator?.onLine === false;
}

/** Listens for `online`, `offline`, `visibilitychange` and `resume`; returns the function that removes them all. */
export function watchEnvironment(env: EnvironmentLike | undefined, handlers: EnvironmentHandlers): () => void {
  const stops: (() => void)[] = [];
  if (
    env !== undefined &&
    typeof env.addEventListener === 'function' &&
    typeof env.removeEventListener === 'function'
  ) {
    const onOnline = (): void => {
      handlers.online();
    };
    const onOffline = (): void => {
      handlers.offline();
    };
    env.addEventListener('online', onOnline);
    env.addEventListener('offline', onOffline);
    stops.push(() => {
      env.removeEventListener?.('online', onOnline);
      env.removeEventListener?.('offline', onOffline);
    });
  }
  const doc = env?.document;
  if (doc !== undefined && typeof doc.addEventListener === 'function') {
    const onVisibility = (): void => {
      if (doc.visibilityState === 'visible') handlers.visible();
    };
    const onResume = (): void => {
      handlers.resumed?.();
    };
    doc.addEventListener('visibilitychange', onVisibility);
    doc.addEventListener('resume', onResume);
    stops.push(() => {
      doc.removeEventListener('visibilitychange', onVisibility);
      doc.removeEventListener('resume', onResume);
    });
  }
  return () => {
    for (const stop of stops.splice(0)) stop();
  };
}
