/**
 * The listeners of a {@link ReconnectingWebSocket} and their dispatch, as EventTarget keeps them:
 * `on…` handlers first, then listeners in the order added (one added twice is called twice), `once`
 * and `signal` honoured, a listener removed by an earlier one not called. A listener that throws is
 * reported and does not stop the others.
 * @module
 */
import type { DropEvent, FlushEvent } from './send-path.js';
import type { CloseEventLike, ErrorEventLike, MessageEventLike, WebSocketEventLike } from './websocket-types.js';

/** The events and their types. */
export interface ReconnectingWebSocketEventMap {
  open: WebSocketEventLike;
  message: MessageEventLike;
  error: ErrorEventLike;
  close: CloseEventLike;
  drop: DropEvent;
  flush: FlushEvent;
}

/** The name of an event. */
export type EventType = keyof ReconnectingWebSocketEventMap;

/**
 * An event handler. Declared as a method type, so that handlers written for the richer DOM event
 * types (`(event: MessageEvent) => void`, `(event: CloseEvent) => void`) or for
 * reconnecting-websocket's own event classes are accepted unchanged.
 */
export type EventHandler<E> = {
  /** Called with each event. */
  bivarianceHack(event: E): void;
}['bivarianceHack'];

/** A listener: a function or an object with `handleEvent`, as for EventTarget. */
export type Listener<E> =
  | EventHandler<E>
  | {
      /** Called with each event. */
      handleEvent(event: E): void;
    };

/**
 * The options of `addEventListener`, as for EventTarget: `once` removes the listener after its first
 * call, `signal` removes it when aborted. `capture` and `passive` mean nothing here and are ignored.
 */
export interface ListenerOptions {
  readonly once?: boolean;
  readonly signal?: AbortSignal;
  readonly capture?: boolean;
  readonly passive?: boolean;
}

interface Registration {
  readonly listener: Listener<unknown>;
  readonly once: boolean;
  /** Removes the signal's abort listener, if any. */
  readonly detach: (() => void) | undefined;
}

/** The listeners of each event type, and their dispatch on behalf of `target` (the `this` of a listener). */
export class WebSocketEventTarget {
  readonly #lists: Record<EventType, Registration[]> = {
    open: [],
    message: [],
    error: [],
    close: [],
    drop: [],
    flush: [],
  };
  readonly #target: object;
  readonly #report: (error: unknown) => void;

  /** `report` receives what a listener throws. */
  constructor(target: object, report: (error: unknown) => void) {
    this.#target = target;
    this.#report = report;
  }

  /** Adds `listener` for `type`; an unknown type, or an aborted signal, adds nothing. */
  add(type: string, listener: Listener<unknown>, options?: boolean | ListenerOptions): void {
    const list = this.#list(type);
    if (list === undefined) return;
    const { once = false, signal } = typeof options === 'object' ? options : {};
    if (signal?.aborted === true) return;
    let detach: (() => void) | undefined;
    const registration: Registration = {
      listener,
      once,
      get detach() {
        return detach;
      },
    };
    if (signal !== undefined) {
      const onAbort = (): void => {
        this.#unregister(list, registration);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      detach = () => {
        signal.removeEventListener('abort', onAbort);
      };
    }
    list.push(registration);
  }

  /** Removes every registration of `listener` for `type`. */
  remove(type: string, listener: Listener<unknown>): void {
    const list = this.#list(type);
    if (list === undefined) return;
    for (const registration of list.filter((r) => r.listener === listener)) this.#unregister(list, registration);
  }

  /** Calls `handler`, if any, then the listeners of `type`. */
  emit<K extends EventType>(
    type: K,
    event: ReconnectingWebSocketEventMap[K],
    handler: EventHandler<ReconnectingWebSocketEventMap[K]> | null,
  ): void {
    if (handler !== null) this.#call(handler, event);
    this.dispatch(type, event);
  }

  /** Calls the listeners of `type` (none for an unknown type). */
  dispatch(type: string, event: unknown): void {
    const list = this.#list(type);
    if (list === undefined) return;
    for (const registration of list.slice()) {
      if (!list.includes(registration)) continue; // removed by an earlier listener
      if (registration.once) this.#unregister(list, registration);
      this.#call(registration.listener, event);
    }
  }

  #list(type: string): Registration[] | undefined {
    return (this.#lists as Partial<Record<string, Registration[]>>)[type];
  }

  #unregister(list: Registration[], registration: Registration): void {
    const i = list.indexOf(registration);
    if (i === -1) return;
    list.splice(i, 1);
    registration.detach?.();
  }

  #call(listener: Listener<unknown>, event: unknown): void {
    try {
      if (typeof listener === 'function') listener.call(this.#target, event);
      else listener.handleEvent(event);
    } catch (error) {
      this.#report(error);
    }
  }
}
