/** The listeners of a client and their dispatch, as EventTarget keeps them. */
import { describe, expect, it } from 'vitest';
import { WebSocketEventTarget } from '../../../src/adapters/websocket/websocket-event-target.js';

const open = { type: 'open' };

function setup() {
  const target = { name: 'client' };
  const reported: unknown[] = [];
  const events = new WebSocketEventTarget(target, (error) => reported.push(error));
  const calls: string[] = [];
  return { target, reported, events, calls };
}

describe('WebSocketEventTarget', () => {
  it('calls the on… handler first, then the listeners in the order added (one added twice, twice)', () => {
    const { events, calls } = setup();
    const a = () => calls.push('a');
    events.add('open', a);
    events.add('open', { handleEvent: () => calls.push('b') });
    events.add('open', a);
    events.emit('open', open, () => calls.push('handler'));
    expect(calls).toEqual(['handler', 'a', 'b', 'a']);
  });

  it('calls a function listener with the target as `this`, and the event', () => {
    const { events, target } = setup();
    let seen: unknown[] = [];
    events.add('open', function (this: unknown, event: unknown) {
      seen = [this, event];
    });
    events.dispatch('open', open);
    expect(seen).toEqual([target, open]);
  });

  it('once: called once; remove(): every registration of the listener goes', () => {
    const { events, calls } = setup();
    const a = () => calls.push('a');
    events.add('message', () => calls.push('once'), { once: true });
    events.add('message', a);
    events.add('message', a);
    events.dispatch('message', {});
    events.remove('message', a);
    events.dispatch('message', {});
    expect(calls).toEqual(['once', 'a', 'a']);
  });

  it('signal: an aborted signal adds nothing; aborting removes the listener', () => {
    const { events, calls } = setup();
    events.add('close', () => calls.push('never'), { signal: AbortSignal.abort() });
    const controller = new AbortController();
    events.add('close', () => calls.push('until abort'), { signal: controller.signal });
    events.dispatch('close', {});
    controller.abort();
    events.dispatch('close', {});
    expect(calls).toEqual(['until abort']);
  });

  it('a listener removed by an earlier one is not called; one added during dispatch waits for the next', () => {
    const { events, calls } = setup();
    const second = () => calls.push('second');
    events.add('drop', () => {
      calls.push('first');
      events.remove('drop', second);
      events.add('drop', () => calls.push('late'));
    });
    events.add('drop', second);
    events.dispatch('drop', {});
    expect(calls).toEqual(['first']);
  });

  it('reports what a listener throws and calls the others', () => {
    const { events, calls, reported } = setup();
    const boom = new Error('boom');
    events.add('error', () => {
      throw boom;
    });
    events.add('error', () => calls.push('after'));
    events.emit('error', { type: 'error' }, () => {
      throw boom;
    });
    expect(reported).toEqual([boom, boom]);
    expect(calls).toEqual(['after']);
  });

  it('an unknown type adds and dispatches nothing', () => {
    const { events, calls } = setup();
    events.add('ping', () => calls.push('ping'));
    events.dispatch('ping', {});
    events.remove('ping', () => undefined);
    expect(calls).toEqual([]);
  });
});
