import { describe, expect, it } from 'vitest';
import { parseSimulateArgs } from '../../../src/tools/cli/simulate-args.js';
import { runCli } from '../../../src/tools/cli/run-cli.js';

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const files = new Map<string, string>();
  return {
    out,
    err,
    files,
    io: {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t), isTTY: false },
      writeFile: (path: string, text: string) => {
        files.set(path, text);
        return Promise.resolve();
      },
    },
  };
}

describe('redialer simulate arguments', () => {
  it('has defaults and accepts repeated or comma-separated policies', () => {
    const a = parseSimulateArgs(['--policy', 'full-jitter,grpc-js', '--policy', 'signalr', '--outage', '2.5']);
    expect(a).toMatchObject({
      clients: 10_000,
      outage: 2.5,
      capacity: 1000,
      seed: 1,
      policies: ['full-jitter', 'grpc-js', 'signalr'],
    });
    expect(parseSimulateArgs([]).policies.length).toBeGreaterThan(5);
  });

  it.each([
    [['--clients', 'ten'], /--clients must be an integer from 1 to 1000000, got "ten"/],
    [['--clients', '1.5'], /--clients must be an integer/],
    [['--capacity', '0'], /--capacity must be an integer from 1/],
    [['--outage=-1'], /--outage must be a number from 0 to 86400, got "-1"/],
    [['--policy', 'exponential'], /--policy "exponential" is not a known policy; choose from redialer-grpc/],
    [['--svg', ''], /--svg needs a file name/],
    [['--server', 'drop'], /--server must be one of refuse, stall, got "drop"/],
    [['--server-hints', 'yes'], /--server-hints must be one of none, announce, admission, got "yes"/],
    [['--seeds', '0'], /--seeds must be an integer from 1 to 100/],
    [['--nope'], /Unknown option '--nope'/],
  ])('rejects %j with a clear error', (argv, message) => {
    expect(() => parseSimulateArgs(argv)).toThrow(message);
  });

  it('prints the table, progress on stderr, writes the SVG, exits 0', async () => {
    const t = io();
    const code = await runCli(
      [
        'simulate',
        '--clients',
        '20',
        '--outage',
        '2',
        '--capacity',
        '5',
        '--policy',
        'redialer-grpc,socket.io',
        '--svg',
        'storm.svg',
      ],
      t.io,
    );
    expect(code).toBe(0);
    expect(t.out.join('')).toMatch(/^policy\s+peak\/s/);
    expect(t.out.join('')).toMatch(/\nsocket\.io\s/);
    expect(t.err.join('')).toMatch(/\[2\/2\] socket\.io: done, 20\/20 reconnected/);
    expect(t.files.get('storm.svg')).toMatch(/^<svg [^>]*>[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
  });

  it('shows progress per simulated second on a terminal', async () => {
    const t = io();
    const tty = { ...t.io, stderr: { write: (text: string) => t.err.push(text), isTTY: true } };
    expect(
      await runCli(['simulate', '--clients', '30', '--outage', '2', '--capacity', '5', '--policy', 'no-jitter'], tty),
    ).toBe(0);
    const progress = t.err.filter((line) => line.startsWith('\r[1/1] no-jitter: t='));
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.at(-1)).toMatch(/100\.0 % reconnected/);
  });

  it('runs several seeds and prints mean [range], with a server model and server hints', async () => {
    const t = io();
    const argv = [
      'simulate',
      '--clients',
      '40',
      '--outage',
      '3',
      '--capacity',
      '10',
      '--policy',
      'redialer-grpc-exact,socket.io',
      '--seeds',
      '3',
    ];
    const code = await runCli([...argv, '--server', 'stall', '--server-hints', 'announce'], t.io);
    expect(code).toBe(0);
    expect(t.out.join('')).toMatch(/^policy\s+attempts while down\s+wasted after return/);
    expect(t.err.join('')).toMatch(/\[2\/2\] socket\.io seed 3: done/);
    expect(parseSimulateArgs(['--server-hints', 'admission', '--server', 'stall'])).toMatchObject({
      server: 'stall',
      serverHints: 'admission',
      seeds: 1,
    });
  });

  it('exits 2 with a message on stderr for bad usage', async () => {
    const t = io();
    expect(await runCli(['simulate', '--clients=-3'], t.io)).toBe(2);
    expect(t.err.join('')).toMatch(/^redialer: --clients must be/);
    expect(await runCli(['simulat'], t.io)).toBe(2);
    expect(t.err.join('')).toMatch(/unknown command "simulat"/);
  });
});
