/**
 * The demo's moving parts: two real servers, a fault proxy in front of each, and a redialer-managed
 * client of each — a grpc-js client over a ManagedChannel and a ReconnectingWebSocket on `ws` — plus a
 * third client, a ManagedChannel with two addresses whose first is a black hole (happyEyeballs).
 */
import { Metadata, credentials } from '@grpc/grpc-js';
import type { Subscription } from 'rxjs';
import WebSocket from 'ws';
import { ManagedChannel } from '../src/adapters/grpc/index.js';
import { grpcBackoff } from '../src/index.js';
import { type Fault, type FaultProxy, startFaultProxy } from '../src/testing/node.js';
import { ReconnectingWebSocket } from '../src/adapters/websocket/index.js';
import { ClientTrack } from './client-track.js';
import { type DemoServer, createPingerClient, startGrpcServer, startWebSocketServer } from './demo-servers.js';
import type { ClientId, FaultName, TimelineEntry } from './live-protocol.js';
import type { DemoSettings } from './scenario.js';

/** One managed client with its proxy. */
export interface DemoClient {
  readonly track: ClientTrack;
  /** "Retry now": the manager's resetBackoff(). */
  resetBackoff(): void;
  /** Switches the proxy's fault; `drop` also resets the connections open now. */
  setFault(fault: FaultName, drop: boolean): Promise<void>;
}

/** Requests made over the managed connections, as proof that they carry traffic. */
export interface Traffic {
  grpcOk: number;
  grpcFailed: number;
  echoes: number;
}

/** Everything the demo runs, and how to stop it. */
export interface DemoRig {
  readonly clients: Readonly<Record<ClientId, DemoClient>>;
  readonly traffic: Traffic;
  close(): Promise<void>;
}

/** Called on every transition of every client (with its timeline entry) and on every fault switch (null). */
export type TransitionListener = (client: ClientTrack, entry: TimelineEntry | null) => void;

/** The proxy fault for a dashboard fault name. */
export function faultOf(name: FaultName): Fault {
  switch (name) {
    case 'pass':
      return { kind: 'pass' };
    case 'refuse':
      return { kind: 'refuse' };
    case 'blackhole':
      return { kind: 'blackhole' };
    case 'close':
      return { kind: 'close-after', ms: 0 };
  }
}

/** The dashboard fault name of a proxy fault. */
export function faultName(fault: Fault): FaultName {
  switch (fault.kind) {
    case 'refuse':
    case 'blackhole':
      return fault.kind;
    case 'close-after':
      return 'close';
    default:
      return 'pass';
  }
}

function control(
  track: ClientTrack,
  proxy: FaultProxy,
  resetBackoff: () => void,
  changed: TransitionListener,
): DemoClient {
  return {
    track,
    resetBackoff,
    async setFault(name, drop) {
      track.fault = name;
      await proxy.setFault(faultOf(name));
      if (drop) proxy.resetAll();
      changed(track, null);
    },
  };
}

/** Starts the servers, the proxies and both clients; `onTransition` hears every state change. */
export async function startRig(settings: DemoSettings, onTransition: TransitionListener): Promise<DemoRig> {
  const servers: DemoServer[] = [];
  const proxies: FaultProxy[] = [];
  const subscriptions: Subscription[] = [];
  const traffic: Traffic = { grpcOk: 0, grpcFailed: 0, echoes: 0 };
  const backoff = grpcBackoff({
    initialBackoff: settings.initialBackoff,
    multiplier: settings.multiplier,
    jitter: settings.jitter,
    maxBackoff: settings.maxBackoff,
  });

  const grpcServer = await startGrpcServer();
  servers.push(grpcServer);
  const grpcProxy = await startFaultProxy({ port: grpcServer.port });
  proxies.push(grpcProxy);
  const grpcTarget = `127.0.0.1:${String(grpcProxy.port)}`;
  const grpcTrack = new ClientTrack('grpc', 'gRPC (grpc-js over ManagedChannel)', grpcTarget);
  const channel = new ManagedChannel(grpcTarget, credentials.createInsecure(), {
    backoff,
    minConnectTimeout: settings.minConnectTimeout,
    minUptime: settings.minUptime,
    trace: (entry) => {
      grpcTrack.trace(entry);
    },
  });
  subscriptions.push(
    channel.state$.subscribe((s) => {
      onTransition(grpcTrack, grpcTrack.record(s, Date.now()));
    }),
  );
  const pinger = createPingerClient(grpcTarget, credentials.createInsecure(), { channelOverride: channel });

  const wsServer = await startWebSocketServer();
  servers.push(wsServer);
  const wsProxy = await startFaultProxy({ port: wsServer.port });
  proxies.push(wsProxy);
  const wsUrl = `ws://127.0.0.1:${String(wsProxy.port)}/`;
  const wsTrack = new ClientTrack('websocket', 'WebSocket (ReconnectingWebSocket on ws)', wsUrl);
  const socket = new ReconnectingWebSocket(wsUrl, [], {
    WebSocket,
    minReconnectionDelay: settings.initialBackoff,
    reconnectionDelayGrowFactor: settings.multiplier,
    reconnectionDelayJitter: settings.jitter,
    maxReconnectionDelay: settings.maxBackoff,
    connectionTimeout: settings.minConnectTimeout,
    minUptime: settings.minUptime,
    trace: (entry) => {
      wsTrack.trace(entry);
    },
  });
  subscriptions.push(
    socket.state$.subscribe((s) => {
      onTransition(wsTrack, wsTrack.record(s, Date.now()));
    }),
  );
  socket.onmessage = () => {
    traffic.echoes += 1;
  };

  // Once a second: a gRPC call (fails fast with UNAVAILABLE while there is no connection) and a
  // WebSocket message (sent only while open, so that nothing piles up in the outbound queue).
  let seq = 0;
  const requests = setInterval(() => {
    seq += 1;
    pinger.ping({ seq }, new Metadata(), { deadline: Date.now() + 1000 }, (error) => {
      if (error === null) traffic.grpcOk += 1;
      else traffic.grpcFailed += 1;
    });
    if (socket.readyState === ReconnectingWebSocket.OPEN) socket.send(`ping ${String(seq)}`);
  }, 1000);

  // The third client: two addresses of the gRPC server, the first a black hole that never answers.
  // happyEyeballs starts the second one attemptDelay (250 ms) later; the first is never waited out.
  const deadProxy = await startFaultProxy({ port: grpcServer.port }, { kind: 'blackhole' });
  proxies.push(deadProxy);
  const foProxy = await startFaultProxy({ port: grpcServer.port });
  proxies.push(foProxy);
  const foTargets = [deadProxy, foProxy].map((p) => `127.0.0.1:${String(p.port)}`);
  const foTrack = new ClientTrack('failover', 'gRPC, two addresses, first dead (happyEyeballs)', foTargets.join(' → '));
  const foChannel = new ManagedChannel(foTargets, credentials.createInsecure(), {
    backoff,
    minConnectTimeout: settings.minConnectTimeout,
    minUptime: settings.minUptime,
    trace: (entry) => {
      foTrack.trace(entry);
    },
  });
  subscriptions.push(
    foChannel.state$.subscribe((s) => {
      onTransition(foTrack, foTrack.record(s, Date.now()));
    }),
  );

  channel.manager.connect();
  foChannel.manager.connect();

  return {
    clients: {
      grpc: control(
        grpcTrack,
        grpcProxy,
        () => {
          channel.manager.resetBackoff();
        },
        onTransition,
      ),
      websocket: control(
        wsTrack,
        wsProxy,
        () => {
          socket.resetBackoff();
        },
        onTransition,
      ),
      failover: control(
        foTrack,
        foProxy,
        () => {
          foChannel.manager.resetBackoff();
        },
        onTransition,
      ),
    },
    traffic,
    async close() {
      clearInterval(requests);
      pinger.close();
      channel.close();
      foChannel.close();
      socket.close();
      for (const subscription of subscriptions) subscription.unsubscribe();
      for (const proxy of proxies) await proxy.close();
      for (const server of servers) await server.close();
    },
  };
}
