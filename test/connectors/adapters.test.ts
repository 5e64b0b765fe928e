/**
 * The adapters with several addresses, against real servers on 127.0.0.1: a ManagedChannel (grpc-js
 * client and server) and a ReconnectingWebSocket (`ws` both sides), each given a refusing, a
 * black-holed (fault proxy) and a good address. Counted server side; the only upper bound is half the
 * connect timeout a black hole would otherwise cost.
 */
import { credentials } from '@grpc/grpc-js';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ManagedChannel } from '../../src/adapters/grpc/index.js';
import { ReconnectingWebSocket } from '../../src/adapters/websocket/index.js';
import { type Fault, type FaultProxy, startFaultProxy } from '../../src/testing/node.js';
import { createTestClient, echo, startTestServer } from '../support/grpc/service.js';
import { startServer } from '../support/websocket/ws-server.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function proxy(port: number, fault: Fault): Promise<FaultProxy> {
  const p = await startFaultProxy({ port }, fault);
  cleanups.push(() => p.close());
  return p;
}

async function threeAddresses(port: number): Promise<Record<'refusing' | 'blackholed' | 'good', FaultProxy>> {
  return {
    refusing: await proxy(port, { kind: 'refuse' }),
    blackholed: await proxy(port, { kind: 'blackhole' }),
    good: await proxy(port, { kind: 'pass' }),
  };
}

describe('adapters with several addresses', () => {
  it('ManagedChannel races its targets: a call goes through the good one, one stagger after the black hole', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const p = await threeAddresses(server.port);
    const targets = [p.blackholed, p.refusing, p.good].map((x) => `127.0.0.1:${String(x.port)}`);
    const channel = new ManagedChannel(targets, credentials.createInsecure(), { waitForReady: true });
    const client = createTestClient(targets[0] ?? '', credentials.createInsecure(), { channelOverride: channel });
    cleanups.push(() => {
      client.close();
      channel.close();
    });
    expect(channel.getTarget()).toBe(targets[0]);
    const started = performance.now();
    await expect(echo(client, 'hi')).resolves.toEqual({ text: 'hi' });
    const elapsed = performance.now() - started;
    console.log(
      `ManagedChannel, black hole → refusing → good: first call answered after ${elapsed.toFixed(0)} ms (attemptDelay 250 ms)`,
    );
    expect(elapsed).toBeGreaterThanOrEqual(245);
    expect(elapsed).toBeLessThan(10_000);
    expect([p.blackholed.accepted, p.refusing.accepted, p.good.accepted]).toEqual([1, 0, 1]);
  });

  it('ManagedChannel rejects an empty or non-string target list by name', () => {
    expect(() => new ManagedChannel([], credentials.createInsecure())).toThrow(/target string or a non-empty array/);
    expect(() => new ManagedChannel([1 as never], credentials.createInsecure())).toThrow(
      /target string or a non-empty array/,
    );
  });

  it('ReconnectingWebSocket races its URLs and sends through the good one', async () => {
    const server = await startServer(0);
    cleanups.push(() => server.stop());
    const p = await threeAddresses(server.port);
    const urls = [p.refusing, p.blackholed, p.good].map((x) => `ws://127.0.0.1:${String(x.port)}/`);
    const started = performance.now();
    const socket = new ReconnectingWebSocket(urls, undefined, { WebSocket });
    cleanups.push(() => {
      socket.close();
    });
    await new Promise<void>((resolve) => {
      socket.addEventListener('open', () => {
        resolve();
      });
    });
    const elapsed = performance.now() - started;
    console.log(
      `ReconnectingWebSocket, refusing → black hole → good: open after ${elapsed.toFixed(0)} ms (attemptDelay 250 ms)`,
    );
    expect(elapsed).toBeGreaterThanOrEqual(245);
    expect(elapsed).toBeLessThan(10_000);
    expect(socket.url).toBe(urls[2]);
    expect([p.refusing.accepted, p.blackholed.accepted, p.good.accepted]).toEqual([0, 1, 1]);
  });
});
