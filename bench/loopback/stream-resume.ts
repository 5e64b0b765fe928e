/**
 * `npm run bench:stream-resume [-- --rounds 3 --outage 10000]`: how long a `ResilientStream` over a
 * `ManagedChannel` takes to resume after a grpc-js server restart (forceShutdown, then a new server on
 * the same port `outage` ms later), with gRPC's default backoff on both: the stream on its own backoff
 * (no `channel`, opens failing fast while the channel has no connection) against the stream following
 * its channel (`channel`). Prints, per round, the time from the restart to the channel's READY and to
 * the first message of the resumed stream; writes bench/results/stream-resume.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type Client,
  type ClientReadableStream,
  credentials,
  makeGenericClientConstructor,
  Metadata,
  Server,
  ServerCredentials,
  type ServerWritableStream,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { filter, firstValueFrom } from 'rxjs';
import { ManagedChannel, ResilientStream } from '../../src/adapters/grpc/index.js';
import { median } from '../support/median.js';

interface Tick {
  readonly seq: number;
}
const json = {
  requestSerialize: (value: Tick) => Buffer.from(JSON.stringify(value)),
  requestDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as Tick,
  responseSerialize: (value: Tick) => Buffer.from(JSON.stringify(value)),
  responseDeserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as Tick,
};
const service: ServiceDefinition = {
  ticks: { path: '/bench.Ticks/Ticks', requestStream: false, responseStream: true, ...json },
};
interface TicksClient extends Client {
  ticks(request: Tick, metadata?: Metadata): ClientReadableStream<Tick>;
}
const TicksClient = makeGenericClientConstructor(service, 'Ticks') as unknown as new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: object,
) => TicksClient;

const { values } = parseArgs({ options: { rounds: { type: 'string' }, outage: { type: 'string' } } });
const rounds = Number(values.rounds ?? 3);
const outage = Number(values.outage ?? 10_000);
const say = (text: string): void => {
  process.stderr.write(`${text}\n`);
};

/** A server streaming a tick every 50 ms from the requested seq. */
async function serve(port: number): Promise<{ server: Server; port: number }> {
  const server = new Server();
  server.addService(service, {
    ticks: (call: ServerWritableStream<Tick, Tick>) => {
      let seq = call.request.seq;
      const timer = setInterval(() => call.write({ seq: seq++ }), 50);
      call.on('cancelled', () => {
        clearInterval(timer);
      });
      call.on('close', () => {
        clearInterval(timer);
      });
    },
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${String(port)}`, ServerCredentials.createInsecure(), (error, p) => {
      if (error === null) resolve(p);
      else reject(error);
    });
  });
  return { server, port: bound };
}

async function round(follows: boolean): Promise<{ channelReady: number; resumed: number }> {
  const first = await serve(0);
  const { port } = first;
  let { server } = first;
  const address = `127.0.0.1:${String(port)}`;
  const channel = new ManagedChannel(address, credentials.createInsecure());
  const client = new TicksClient(address, credentials.createInsecure(), { channelOverride: channel });
  const seen: number[] = [];
  let onMessage: (() => void) | undefined;
  const stream = new ResilientStream<Tick, Tick>({
    ...(follows
      ? { channel, open: (request, { metadata }) => client.ticks(request, metadata) }
      : // The code docs/grpc.md showed before: the stream's own backoff, opens that fail fast.
        { open: (request) => client.ticks(request, new Metadata({ waitForReady: false })) }),
    request: (last) => ({ seq: last === undefined ? 0 : last.seq + 1 }),
  });
  stream.messages$.subscribe((tick) => {
    seen.push(tick.seq);
    onMessage?.();
  });
  stream.start();
  await new Promise<void>((resolve) => {
    onMessage = () => {
      if (seen.length >= 5) resolve();
    };
  });
  server.forceShutdown();
  await new Promise((resolve) => setTimeout(resolve, outage));
  ({ server } = await serve(port));
  const restartedAt = Date.now();
  const before = seen.length;
  const resumed = new Promise<number>((resolve) => {
    onMessage = () => {
      if (seen.length > before) resolve(Date.now());
    };
  });
  const ready = await firstValueFrom(channel.state$.pipe(filter((s) => s.state === 'READY')));
  const resumedAt = await resumed;
  const gaps = seen.filter((seq, i) => i > 0 && seq !== (seen[i - 1] ?? 0) + 1).length;
  if (gaps > 0) throw new Error(`messages out of order or lost: ${String(gaps)} gaps`);
  stream.close();
  client.close();
  channel.close();
  server.forceShutdown();
  return { channelReady: ready.since - restartedAt, resumed: resumedAt - restartedAt };
}

const results: Record<string, { channelReady: number; resumed: number }[]> = { 'own backoff': [], channel: [] };
for (let i = 0; i < rounds; i++) {
  for (const follows of [false, true]) {
    const r = await round(follows);
    const name = follows ? 'channel' : 'own backoff';
    results[name]!.push(r);
    say(
      `round ${String(i + 1)}, ${name}: channel READY +${String(r.channelReady)} ms, stream resumed +${String(r.resumed)} ms after the restart`,
    );
  }
}
for (const [name, rs] of Object.entries(results)) {
  const lag = rs.map((r) => r.resumed - r.channelReady);
  say(
    `${name}: resumed ${String(median(lag))} ms (median; ${String(Math.min(...lag))}–${String(Math.max(...lag))}) after the channel's READY`,
  );
}
mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
writeFileSync(
  join(process.cwd(), 'bench/results/stream-resume.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, outage, results }, null, 1)}\n`,
);
