/**
 * Where a connection manager's bytes go: takes a V8 heap snapshot before and after creating many
 * managers in one state, and lists the objects that are new in the second one, grouped by V8 node
 * type and constructor name, per manager.
 *
 *   npm run bench:heap -- --state backoff|ready|idle [--count 10000]
 *
 * Run it after a change to the manager to see what the change bought; `npm run bench` records the
 * totals side by side with grpc-js's BackoffTimeout in BENCHMARKS.md.
 * @module
 */
import { getHeapSnapshot } from 'node:v8';
import { parseArgs } from 'node:util';
import { NEVER, Observable, throwError } from 'rxjs';
import { grpcBackoff } from '../../src/backoff/grpc-backoff.js';
import { ConnectionManager } from '../../src/core/connection-manager.js';

const HOUR = 3_600_000;
const STATES = ['backoff', 'ready', 'idle'] as const;
type ManagerState = (typeof STATES)[number];

/** One group of new objects: V8 node type and name, how many per manager, and their bytes per manager. */
export interface HeapGroup {
  readonly kind: string;
  readonly perManager: number;
  readonly bytesPerManager: number;
}

/** The breakdown for one state. */
export interface HeapBreakdown {
  readonly state: ManagerState;
  readonly count: number;
  /** Self bytes of every new object, per manager (the sum of all groups). */
  readonly bytesPerManager: number;
  readonly groups: readonly HeapGroup[];
}

interface Snapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: string[];
      readonly node_types: [string[], ...unknown[]];
      readonly edge_fields: string[];
      readonly edge_types: [string[], ...unknown[]];
    };
  };
  readonly nodes: number[];
  readonly edges: number[];
  readonly strings: string[];
}

async function takeSnapshot(): Promise<Snapshot> {
  const chunks: Buffer[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Snapshot;
}

interface NodeRecord {
  readonly kind: string;
  readonly size: number;
}

function nodesById(s: Snapshot): Map<number, NodeRecord> {
  const fields = s.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const idAt = fields.indexOf('id');
  const sizeAt = fields.indexOf('self_size');
  const edgeCountAt = fields.indexOf('edge_count');
  const edgeFields = s.snapshot.meta.edge_fields;
  const edgeWidth = edgeFields.length;
  const edgeTypeAt = edgeFields.indexOf('type');
  const edgeNameAt = edgeFields.indexOf('name_or_index');
  const edgeTypes = s.snapshot.meta.edge_types[0];
  const types = s.snapshot.meta.node_types[0];
  const out = new Map<number, NodeRecord>();
  let edge = 0;
  for (let i = 0; i < s.nodes.length; i += width) {
    const type = types[s.nodes[i + typeAt]!] ?? 'unknown';
    const rawName = s.strings[s.nodes[i + nameAt]!] ?? '';
    const edgeCount = s.nodes[i + edgeCountAt]!;
    // Strings and numbers are named by their value: group them by type alone. Plain objects are named by
    // their property names, which says which of redialer's records they are.
    let name =
      type === 'string' || type === 'number' || type === 'concatenated string' || type === 'sliced string'
        ? ''
        : rawName;
    if (type === 'object' && rawName === 'Object') {
      const keys: string[] = [];
      for (let e = edge; e < edge + edgeCount * edgeWidth; e += edgeWidth) {
        if (edgeTypes[s.edges[e + edgeTypeAt]!] === 'property') keys.push(s.strings[s.edges[e + edgeNameAt]!] ?? '');
      }
      name = `Object {${keys
        .filter((k) => !k.startsWith('<'))
        .slice(0, 6)
        .join(', ')}}`;
    }
    edge += edgeCount * edgeWidth;
    out.set(s.nodes[i + idAt]!, { kind: name === '' ? `(${type})` : `${name} (${type})`, size: s.nodes[i + sizeAt]! });
  }
  return out;
}

function nodeIds(s: Snapshot): Float64Array {
  const width = s.snapshot.meta.node_fields.length;
  const idAt = s.snapshot.meta.node_fields.indexOf('id');
  const ids = new Float64Array(s.nodes.length / width);
  for (let i = idAt, j = 0; i < s.nodes.length; i += width, j++) ids[j] = s.nodes[i]!;
  return ids.sort();
}

function contains(sorted: Float64Array, id: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const value = sorted[mid]!;
    if (value === id) return true;
    if (value < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run node with --expose-gc (npm run bench:heap does)');
  collect();
  collect();
}

const refused = new Error('connection refused');

function create(state: ManagerState): ConnectionManager {
  switch (state) {
    case 'backoff': {
      const m = new ConnectionManager<unknown>({
        connector: (): Observable<never> => throwError(() => refused),
        backoff: grpcBackoff({ initialBackoff: HOUR }),
        unref: true,
      });
      m.connect();
      return m;
    }
    case 'ready': {
      const m = new ConnectionManager<unknown>({
        connector: () =>
          new Observable<unknown>((subscriber) => {
            subscriber.next({});
            // A real connector's teardown closes its socket.
            return () => undefined;
          }),
        unref: true,
      });
      m.connect();
      return m;
    }
    case 'idle':
      return new ConnectionManager<unknown>({ connector: () => NEVER, unref: true });
  }
}

/** Creates `count` managers in `state` and returns what the heap gained, grouped, per manager. */
export async function heapBreakdown(state: ManagerState, count: number): Promise<HeapBreakdown> {
  gc();
  // The first snapshot's ids are kept in one typed array (off the JS heap): anything larger kept from
  // it would itself show up as new objects in the second.
  const idsBefore = nodeIds(await takeSnapshot());
  gc();
  const managers: ConnectionManager[] = [];
  for (let i = 0; i < count; i++) managers.push(create(state));
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  const after = nodesById(await takeSnapshot());
  const groups = new Map<string, { n: number; bytes: number }>();
  for (const [id, node] of after) {
    if (contains(idsBefore, id)) continue;
    const g = groups.get(node.kind) ?? { n: 0, bytes: 0 };
    g.n += 1;
    g.bytes += node.size;
    groups.set(node.kind, g);
  }
  for (const m of managers) m.shutdown();
  const list = [...groups]
    .map(([kind, g]) => ({ kind, perManager: g.n / count, bytesPerManager: g.bytes / count }))
    .filter((g) => g.perManager >= 0.5)
    .sort((a, b) => b.bytesPerManager - a.bytesPerManager);
  return { state, count, bytesPerManager: list.reduce((sum, g) => sum + g.bytesPerManager, 0), groups: list };
}

/** The breakdown as an aligned text table. */
export function formatBreakdown(b: HeapBreakdown): string {
  const lines = [
    `${b.count.toLocaleString('en-US')} managers in ${b.state}: ${b.bytesPerManager.toFixed(0)} bytes each (self sizes of new objects)`,
  ];
  lines.push(`${'objects each'.padStart(12)}  ${'bytes each'.padStart(10)}  kind`);
  for (const g of b.groups)
    lines.push(`${g.perManager.toFixed(2).padStart(12)}  ${g.bytesPerManager.toFixed(1).padStart(10)}  ${g.kind}`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const { values } = parseArgs({
    options: { state: { type: 'string', default: 'backoff' }, count: { type: 'string', default: '10000' } },
  });
  const state = values.state as ManagerState;
  if (!(STATES as readonly string[]).includes(state)) {
    process.stderr.write(
      `bench:heap: --state must be one of ${STATES.join(', ')}, got ${JSON.stringify(values.state)}\n`,
    );
    process.exit(2);
  }
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 100) {
    process.stderr.write(`bench:heap: --count must be an integer >= 100, got ${JSON.stringify(values.count)}\n`);
    process.exit(2);
  }
  process.stdout.write(`${formatBreakdown(await heapBreakdown(state, count))}\n`);
  process.exit(0);
}
