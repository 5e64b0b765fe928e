/**
 * partysocket 1.3's src/tests/integration.test.ts re-expressed on the harness. Theirs construct a
 * PartySocket (host and room) at a `ws` server on a fixed port; the behaviour they test (a lifecycle,
 * reconnecting, ordering, several clients) is the base class's, so the client here is the class
 * itself at the URL of a server of the test's own. Their two tests of PartySocket's own features
 * (its room and party getters, PartySocket.fetch's URL) are out of scope and not here.
 */
import { expect } from 'vitest';
import type { WebSocket as ServerSocket } from 'ws';
import { type KnownDifference, peerSuite } from './peer-suite.js';
import {
  type AnyEvent,
  type Client,
  againstServer,
  closesFirstConnectionAfter,
  echoBack,
  listen,
  nextOpen,
  onText,
  settle,
  sleep,
  textOf,
  until,
} from './peer-support.js';

const known: Record<string, KnownDifference> = {};

const OPEN = 1;
const CLOSED = 3;

peerSuite('partysocket integration.test.ts', 'partysocket', known, (test) => {
  // Integration - Full Lifecycle
  test('complete WebSocket lifecycle: connect, send, receive, close', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const testMessage = 'integration-test-message';
    const { make, s } = await againstServer(context, (client) => {
      client.on('message', (data) => {
        client.send(`echo: ${(data as Buffer).toString()}`);
      });
    });
    await settle(5000, (done, _fail, guard) => {
      const ps = make(s.url);
      listen(ps, 'open', guard, () => {
        expect(ps.readyState).toBe(OPEN);
        ps.send(testMessage);
      });
      // close() dispatches its close event synchronously (in theirs): the listener comes first
      listen(ps, 'close', guard, () => {
        expect(ps.readyState).toBe(CLOSED);
        done();
      });
      ps.addEventListener('message', (event: AnyEvent) => {
        void textOf(event.data).then(
          guard((text: string) => {
            expect(text).toContain(testMessage);
            ps.close();
          }),
        );
      });
    });
  });

  test('handles server disconnect and reconnect', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, s } = await againstServer(context, closesFirstConnectionAfter(100));
    await settle(5000, (done, _fail, guard) => {
      const ps = make(s.url, undefined, { minReconnectionDelay: 50, maxReconnectionDelay: 100 });
      let openCount = 0;
      listen(ps, 'open', guard, () => {
        openCount++;
        if (openCount === 2) {
          // Successfully reconnected
          expect(s.connections).toBe(2);
          ps.close();
          done();
        }
      });
    });
  }, 5000);

  test('maintains message order during high load', async (context) => {
    // rewritten: PartySocket in theirs; the base class here. Theirs resolves on its 10 s timeout
    // whatever the order; here the order is asserted once every echo has come.
    const messageCount = 20;
    const { make, s } = await againstServer(context, echoBack);
    const receivedMessages: string[] = [];
    const ps = make(s.url);
    ps.addEventListener('message', (event: AnyEvent) => {
      void textOf(event.data).then((text) => receivedMessages.push(text));
    });
    await nextOpen(ps);
    // Send messages sequentially
    for (let sent = 0; sent < messageCount; sent++) {
      ps.send(`message-${String(sent)}`);
      await sleep(10);
    }
    await until(() => receivedMessages.length >= messageCount, 5000, 'every echo');
    await sleep(100);
    expect(receivedMessages).toEqual(Array.from({ length: messageCount }, (_, i) => `message-${String(i)}`));
    ps.close();
  }, 15_000);

  // Integration - Multiple Concurrent Connections
  test('handles multiple PartySocket instances', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const socketCount = 5;
    const { make, s } = await againstServer(context, (client) => {
      client.send('welcome');
    });
    const sockets: Client[] = [];
    await Promise.all(
      Array.from({ length: socketCount }, () =>
        settle(5000, (done) => {
          const ps = make(s.url);
          ps.addEventListener('message', () => {
            done();
          });
          sockets.push(ps);
        }),
      ),
    );
    // All sockets should be open
    for (const socket of sockets) {
      expect(socket.readyState).toBe(OPEN);
      socket.close();
    }
  });

  // Integration - Real-World Scenarios
  test('chat application scenario', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const peers = new Set<ServerSocket>();
    const { make, s } = await againstServer(context, (client) => {
      peers.add(client);
      client.on('message', (data) => {
        // Broadcast to all clients
        for (const peer of peers) if (peer.readyState === OPEN) peer.send((data as Buffer).toString());
      });
    });
    const users = Array.from({ length: 3 }, (_, i) => ({
      id: `user-${String(i)}`,
      socket: make(s.url),
      messages: [] as string[],
    }));
    // Wait for all to connect
    await Promise.all(
      users.map((user) =>
        settle(5000, (done) => {
          user.socket.addEventListener('open', () => {
            user.socket.addEventListener('message', (event: AnyEvent) => {
              void textOf(event.data).then((text) => user.messages.push(text));
            });
            done();
          });
        }),
      ),
    );
    users[0]!.socket.send('Hello from user 0!');
    // Wait for messages to propagate (at most 2 s, as theirs)
    const deadline = performance.now() + 2000;
    while (!users.every((user) => user.messages.length > 0) && performance.now() < deadline) await sleep(50);
    for (const user of users) {
      expect(user.messages.length).toBeGreaterThan(0);
      user.socket.close();
    }
  });

  test('collaborative editing scenario', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const operations: string[] = [];
    const { make, s } = await againstServer(context, (client, n) => {
      if (n > 1) return; // Only handle first connection
      client.on('message', (data) => {
        // Server processes operation and sends back confirmation
        const operation = (data as Buffer).toString();
        operations.push(operation);
        client.send(`ack:${operation}`);
      });
    });
    const editor = make(s.url);
    const acks: string[] = [];
    let resolved = false;
    await new Promise<void>((resolve) => {
      editor.addEventListener('message', (event: AnyEvent) => {
        if (resolved) return;
        void textOf(event.data).then((text) => {
          if (text.startsWith('ack:')) {
            acks.push(text);
            if (acks.length === 3) {
              resolved = true;
              resolve();
            }
          }
        });
      });
      editor.addEventListener('open', () => {
        editor.send('insert:0:H');
        editor.send('insert:1:i');
        editor.send('insert:2:!');
        // Timeout after 2 seconds
        setTimeout(() => {
          resolved = true;
          resolve();
        }, 2000);
      });
      setTimeout(resolve, 5000); // bounded also when the client never opens
    });
    expect(acks.length).toBe(3);
    expect(operations).toEqual(['insert:0:H', 'insert:1:i', 'insert:2:!']);
    editor.close();
  });

  test('gaming scenario with frequent updates', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const timers: NodeJS.Timeout[] = [];
    context.defer(() => {
      for (const t of timers) clearInterval(t);
    });
    const { make, s } = await againstServer(context, (client, n) => {
      if (n > 1) return;
      // Simulate game server sending position updates
      const interval = setInterval(() => {
        if (client.readyState === OPEN) client.send(`pos:${String(Math.random())},${String(Math.random())}`);
        else clearInterval(interval);
      }, 10);
      timers.push(interval);
    });
    const updates: number[] = [];
    await settle(8000, (done) => {
      const gameClient = make(s.url);
      gameClient.addEventListener('open', () => {
        onText(gameClient, (text) => {
          if (text.startsWith('pos:')) updates.push(Date.now());
          // After receiving 50 updates, stop
          if (updates.length >= 50) {
            gameClient.close();
            done();
          }
        });
      });
    });
    expect(updates.length).toBeGreaterThanOrEqual(50);
    // Updates should be reasonably spaced (not bunched)
    const avgInterval = (updates[updates.length - 1]! - updates[0]!) / updates.length;
    expect(avgInterval).toBeLessThan(100); // Less than 100ms average
  }, 10_000);

  // Integration - Error Recovery
  test('recovers from network interruption', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    const { make, s } = await againstServer(context, (client, n) => {
      // First connection succeeds then fails; subsequent connections succeed
      if (n === 1)
        setTimeout(() => {
          client.close();
        }, 100);
      else client.send('recovered');
    });
    let recovered = false;
    await settle(5000, (done) => {
      const ps = make(s.url, undefined, { minReconnectionDelay: 50, maxReconnectionDelay: 100 });
      onText(ps, (text) => {
        if (text === 'recovered') {
          recovered = true;
          ps.close();
          done();
        }
      });
    });
    expect(recovered).toBe(true);
    expect(s.connections).toBeGreaterThanOrEqual(2);
  }, 5000);

  test('handles server restart', async (context) => {
    // rewritten: PartySocket in theirs; the base class here
    let serverVersion = 1;
    const { make, s } = await againstServer(context, (client) => {
      client.send(`server-v${String(serverVersion)}`);
    });
    const versions: string[] = [];
    await settle(5000, (done) => {
      const ps = make(s.url, undefined, { minReconnectionDelay: 50 });
      onText(ps, (text) => {
        versions.push(text);
        if (versions.length === 1) {
          // Simulate server restart
          serverVersion = 2;
          ps.reconnect();
        } else if (versions.length === 2) {
          ps.close();
          done();
        }
      });
    });
    expect(versions).toEqual(['server-v1', 'server-v2']);
  });
});
