/**
 * The scripted terminal demo end to end: `npm start`'s program with `--fast`, in a child process whose
 * stdout is a pipe (as in CI), against its real servers and proxies.
 */
import { execFile } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDemo, root } from './support.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { cwd: root, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

describe('npm start (non-TTY, --fast)', () => {
  let result: Run;

  beforeAll(async () => {
    const dir = await buildDemo('demo-build-terminal');
    result = await run(`${dir}/main.js`, ['--fast', '--port', '0']);
  }, 120_000);

  it('ends by itself with exit code 0 and nothing on stderr', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('plays every phase in order, as plain lines without color codes', () => {
    const phases = [...result.stdout.matchAll(/== (\d)\. ([a-z ]+):/g)].map((m) => `${m[1] ?? ''} ${m[2] ?? ''}`);
    expect(phases).toEqual([
      '1 up',
      '2 server down',
      '3 server back',
      '4 black hole',
      '5 accept and close',
      '6 recovery',
    ]);
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('shows each failure with the countdown to the next attempt, and black-hole attempts cut at the connect timeout', () => {
    // A duration as people read it: `340 ms`, `1.6 s`, `2 s`.
    const duration = '\\d+(?:\\.\\d)? m?s';
    for (const client of ['grpc', 'websocket']) {
      expect(result.stdout).toMatch(
        new RegExp(`${client} +TRANSIENT_FAILURE +attempt \\d+ ended \\(.+\\); next attempt (?:in ${duration}|now)`),
      );
      expect(result.stdout).toMatch(
        new RegExp(
          `${client} +TRANSIENT_FAILURE +attempt \\d+ ended \\(connection attempt \\d+ did not complete within ${duration}\\)`,
        ),
      );
    }
    expect(result.stdout).toContain('initial backoff 0.25 s (gRPC: 1 s)');
  });

  it('the third client, whose first address is a black hole, first connects one stagger (250 ms) after its attempt starts', () => {
    const delays = [...result.stdout.matchAll(/failover +READY +attempt \d+ connected after (\d+) ms/g)].map((m) =>
      Number(m[1]),
    );
    expect(delays.length).toBeGreaterThanOrEqual(2);
    // Both addresses are fresh at the start: the dead one is tried first, the good one a stagger later.
    // Later attempts may start the good address alone, while the dead one waits out its own backoff
    // (each address has its own, gRFC A61), so they can connect sooner.
    expect(delays[0]).toBeGreaterThanOrEqual(250);
  });

  it('ends with a summary: attempts, backoff resets and time to recover for each client', () => {
    const summary = result.stdout.slice(result.stdout.indexOf('Summary after'));
    expect(summary).toMatch(/client +attempts +backoff resets +back after "server back" +back after "recovery"/);
    for (const client of ['grpc', 'websocket', 'failover']) {
      const row = new RegExp(`^ +${client} +(\\d+) +(\\d+) +(\\d+\\.\\d\\d) s +(\\d+\\.\\d\\d) s$`, 'm').exec(summary);
      expect(row, `${client} row in:\n${summary}`).not.toBeNull();
      const [, attempts, resets] = row!.map(Number);
      // Two outages of several attempts each, and a reset after each stable connection.
      expect(attempts).toBeGreaterThanOrEqual(8);
      expect(resets).toBeGreaterThanOrEqual(1);
    }
    expect(summary).toMatch(/gRPC calls over the managed channel: [1-9]\d* answered, [1-9]\d* failed/);
    expect(summary).toMatch(/^ +grpc +[c#x.]+$/m);
  });
});
