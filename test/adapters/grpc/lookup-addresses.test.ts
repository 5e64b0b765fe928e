import { credentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { interleaveFamilies } from '../../../src/core/index.js';
import { hostPort, lookupAddresses, ManagedChannel } from '../../../src/adapters/grpc/index.js';
import { createTestClient, echo, startTestServer } from '../../support/grpc/service.js';

const v6 = (n: number) => ({ address: `2001:db8::${String(n)}`, family: 6 });
const v4 = (n: number) => ({ address: `192.0.2.${String(n)}`, family: 4 });

describe('RFC 8305 family interleaving', () => {
  it('alternates families, starting with the first answer, keeping each family in order', () => {
    expect(interleaveFamilies([v6(1), v6(2), v6(3), v4(1), v4(2)]).map((a) => a.address)).toEqual([
      '2001:db8::1',
      '192.0.2.1',
      '2001:db8::2',
      '192.0.2.2',
      '2001:db8::3',
    ]);
    expect(interleaveFamilies([v4(1), v6(1), v4(2)]).map((a) => a.address)).toEqual([
      '192.0.2.1',
      '2001:db8::1',
      '192.0.2.2',
    ]);
    expect(interleaveFamilies([v6(1), v6(2), v4(1)], 2).map((a) => a.address)).toEqual([
      '2001:db8::1',
      '2001:db8::2',
      '192.0.2.1',
    ]);
    expect(interleaveFamilies([])).toEqual([]);
    expect(() => interleaveFamilies([v4(1)], 0)).toThrow(/"firstFamilyCount"/);
  });

  it('lookupAddresses asks the resolver for every address, verbatim, and interleaves them', async () => {
    const asked: unknown[] = [];
    const found = await lookupAddresses('api.example.test', {
      lookup: (name, options) => {
        asked.push([name, options]);
        return Promise.resolve([v6(1), v6(2), v4(1)]);
      },
    });
    expect(asked).toEqual([['api.example.test', { all: true, order: 'verbatim' }]]);
    expect(found.map((a) => a.address)).toEqual(['2001:db8::1', '192.0.2.1', '2001:db8::2']);
    expect(hostPort('2001:db8::1', 443)).toBe('[2001:db8::1]:443');
    expect(hostPort('192.0.2.1', 443)).toBe('192.0.2.1:443');
    await expect(lookupAddresses('')).rejects.toThrow(TypeError);
  });

  it('a real name: localhost resolved by the system, raced by a ManagedChannel to a real server', async () => {
    const server = await startTestServer();
    try {
      const addresses = await lookupAddresses('localhost');
      expect(addresses.length).toBeGreaterThanOrEqual(1);
      if (!addresses.some((a) => a.family === 4)) {
        console.log('lookup-addresses: skipped the real race: localhost has no IPv4 address here');
        return;
      }
      // The server listens on 127.0.0.1 only: a ::1 answer is refused and the next address is tried at once.
      const targets = addresses.map((a) => hostPort(a.address, server.port));
      const channel = new ManagedChannel(targets, credentials.createInsecure(), { waitForReady: true });
      const client = createTestClient(targets[0] ?? '', credentials.createInsecure(), { channelOverride: channel });
      try {
        await expect(echo(client, 'dns')).resolves.toEqual({ text: 'dns' });
      } finally {
        client.close();
        channel.close();
      }
    } finally {
      await server.close();
    }
  });
});
