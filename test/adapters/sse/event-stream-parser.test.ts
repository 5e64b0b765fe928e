/**
 * The text/event-stream parser against WHATWG HTML §9.2.6, case by case, fed whole and split at every
 * position (a stream arrives in chunks anywhere, a CRLF split between two of them included).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventStreamParser, type ParsedEvent } from '../../../src/adapters/sse/index.js';

interface Parsed {
  readonly events: ParsedEvent[];
  readonly retries: number[];
  readonly lastEventId: string;
}

function parse(chunks: readonly string[], initialId = ''): Parsed {
  const events: ParsedEvent[] = [];
  const retries: number[] = [];
  const parser = new EventStreamParser({ event: (e) => events.push(e), retry: (ms) => retries.push(ms) }, initialId);
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return { events, retries, lastEventId: parser.lastEventId };
}

/** The cases: the bytes, and what the spec says they are. */
const CASES: readonly {
  name: string;
  text: string;
  events: Partial<ParsedEvent>[];
  retries?: number[];
  id?: string;
}[] = [
  { name: 'one event, LF', text: 'data: a\n\n', events: [{ type: 'message', data: 'a', lastEventId: '' }] },
  { name: 'CRLF line ends', text: 'data: a\r\n\r\n', events: [{ data: 'a' }] },
  { name: 'CR line ends', text: 'data: a\r\rdata: b\r\r', events: [{ data: 'a' }, { data: 'b' }] },
  { name: 'mixed line ends', text: 'data: a\r\ndata: b\rdata: c\n\n', events: [{ data: 'a\nb\nc' }] },
  { name: 'a leading BOM is dropped', text: '\uFEFFdata: a\n\n', events: [{ data: 'a' }] },
  { name: 'a BOM later is data', text: 'data: \uFEFFa\n\n', events: [{ data: '\uFEFFa' }] },
  { name: 'multi-line data joins with LF', text: 'data: a\ndata: b\n\n', events: [{ data: 'a\nb' }] },
  { name: 'only one leading space is dropped', text: 'data:  a\n\n', events: [{ data: ' a' }] },
  { name: 'no space after the colon', text: 'data:a\n\n', events: [{ data: 'a' }] },
  { name: 'a field without colon has an empty value', text: 'data\n\n', events: [{ data: '' }] },
  { name: 'empty data lines', text: 'data\ndata\n\n', events: [{ data: '\n' }] },
  { name: 'comments are ignored', text: ': hello\ndata: a\n: bye\n\n', events: [{ data: 'a' }] },
  { name: 'a comment-only block dispatches nothing', text: ': ping\n\n', events: [] },
  { name: 'no data: nothing dispatched', text: 'event: x\n\n', events: [] },
  { name: 'named event', text: 'event: tick\ndata: 1\n\n', events: [{ type: 'tick', data: '1' }] },
  {
    name: 'the type resets after each event',
    text: 'event: t\ndata: 1\n\ndata: 2\n\n',
    events: [{ type: 't' }, { type: 'message' }],
  },
  { name: 'an empty event field is message', text: 'event:\ndata: 1\n\n', events: [{ type: 'message' }] },
  {
    name: 'id persists to later events',
    text: 'id: 7\ndata: a\n\ndata: b\n\n',
    events: [{ lastEventId: '7' }, { lastEventId: '7' }],
    id: '7',
  },
  {
    name: 'id without data still moves the cursor',
    text: 'data: a\n\nid: 9\n\n',
    events: [{ lastEventId: '' }],
    id: '9',
  },
  {
    name: 'an id with NUL is ignored',
    text: 'id: 1\ndata: a\n\nid: 2\u00003\ndata: b\n\n',
    events: [{ lastEventId: '1' }, { lastEventId: '1' }],
    id: '1',
  },
  {
    name: 'an empty id resets the cursor',
    text: 'id: 4\ndata: a\n\nid\ndata: b\n\n',
    events: [{ lastEventId: '4' }, { lastEventId: '' }],
    id: '',
  },
  { name: 'retry with digits only', text: 'retry: 1500\n\n', events: [], retries: [1500] },
  {
    name: 'retry with anything else is ignored',
    text: 'retry: 15s\nretry: -1\nretry: 1.5\nretry:\n\n',
    events: [],
    retries: [],
  },
  { name: 'unknown fields are ignored', text: 'foo: bar\ndata: a\n\n', events: [{ data: 'a' }] },
  { name: 'a field name is case-sensitive', text: 'Data: a\ndata: b\n\n', events: [{ data: 'b' }] },
  { name: 'an incomplete event at the end is dropped', text: 'data: a\n\ndata: b\n', events: [{ data: 'a' }] },
  { name: 'colons in the value stay', text: 'data: a: b\n\n', events: [{ data: 'a: b' }] },
];

describe('EventStreamParser (WHATWG HTML §9.2.6)', () => {
  it.each(CASES)('$name', ({ text, events, retries, id }) => {
    const parsed = parse([text]);
    expect(parsed.events).toHaveLength(events.length);
    events.forEach((expected, i) => {
      expect(parsed.events[i]).toMatchObject(expected);
    });
    if (retries !== undefined) expect(parsed.retries).toEqual(retries);
    if (id !== undefined) expect(parsed.lastEventId).toBe(id);
  });

  it.each(CASES)('$name: the same split at every position', ({ text }) => {
    const whole = parse([text]);
    for (let cut = 0; cut <= text.length; cut++) {
      expect(parse([text.slice(0, cut), text.slice(cut)])).toEqual(whole);
    }
  });

  it('the same result for any chunking (fast-check)', () => {
    const all = CASES.map((c) => c.text).join('');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: all.length }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks = [0, ...points].map((from, i) => all.slice(from, points[i] ?? all.length));
        expect(parse(chunks)).toEqual(parse([all]));
      }),
      { numRuns: 200 },
    );
  });

  it('an id in a block that never ended does not move the cursor (a cut stream resumes before that event)', () => {
    const cursors: string[] = [];
    const parser = new EventStreamParser({
      event: () => undefined,
      retry: () => undefined,
      cursor: (id) => cursors.push(id),
    });
    parser.feed('id: 1\n\nid: 2\ndata: b');
    expect(parser.lastEventId).toBe('1');
    parser.end();
    expect(parser.lastEventId).toBe('1');
    expect(cursors).toEqual(['1']);
    parser.feed('\n\n');
    expect(cursors).toEqual(['1']);
  });

  it('starts from the cursor it is given', () => {
    expect(parse(['data: a\n\n'], '41').events[0]?.lastEventId).toBe('41');
  });
});
