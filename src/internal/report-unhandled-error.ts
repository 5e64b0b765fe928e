/**
 * Where errors go that no caller can receive: a connector's teardown that throws, a trace callback
 * or a metrics sink that throws. They must not break a transition or a retry loop, and they must not
 * vanish either.
 * @module
 */
import { config } from 'rxjs';

/** Receives an error thrown by user code that redialer called and whose caller cannot see it. */
export type UnhandledErrorHandler = (error: unknown) => void;

/**
 * Reports `error` to `handler` (an `onUnhandledError` option) if given, else to RxJS's
 * `config.onUnhandledError` if set, else rethrows it asynchronously (in a microtask), so that it
 * reaches the host's unhandled-error reporting as RxJS does for a throwing subscriber. A handler that
 * throws in turn has both errors rethrown asynchronously in an AggregateError.
 */
export function reportUnhandledError(error: unknown, handler: UnhandledErrorHandler | undefined): void {
  const route = handler ?? config.onUnhandledError ?? undefined;
  if (route !== undefined) {
    try {
      route(error);
      return;
    } catch (handlerError) {
      const both = new AggregateError(
        [error, handlerError],
        'redialer: the onUnhandledError handler threw while handling an error',
      );
      queueMicrotask(() => {
        throw both;
      });
      return;
    }
  }
  queueMicrotask(() => {
    throw error;
  });
}

/** Runs user code so that a throw cannot interrupt the caller; the error goes to {@link reportUnhandledError}. */
export function runGuarded(fn: () => void, handler: UnhandledErrorHandler | undefined): void {
  try {
    fn();
  } catch (error) {
    reportUnhandledError(error, handler);
  }
}
