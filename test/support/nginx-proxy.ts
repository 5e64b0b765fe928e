/**
 * A real nginx (Debian's nginx-light or nginx) as the HTTP/2 gRPC proxy in front of a test server, on
 * 127.0.0.1, configured the way its documentation shows (`listen … http2; grpc_pass grpc://…`), its
 * config, logs and temp files in a temp dir, started and stopped by the test. nginx's own stub_status
 * counts the client connections it accepts, so a test can count connections at the proxy. When nginx
 * is not installed, `nginxPath` is undefined and the suites skip with one printed line (CI installs it).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canConnect } from './loopback.js';
import { findBinary, skipWithout, terminate } from './system-binary.js';

/** The nginx binary, if one is installed (Debian puts it in /usr/sbin). */
export const nginxPath: string | undefined = findBinary('nginx', ['/usr/sbin', '/usr/local/sbin', '/usr/bin']);

/** Prints the one line a suite shows when it skips for want of nginx; returns whether to skip. */
export function skipWithoutNginx(suite: string): boolean {
  return skipWithout(nginxPath, 'nginx', 'nginx-light', suite);
}

export interface NginxProxyOptions {
  /** The gRPC backend's port on 127.0.0.1. */
  readonly backendPort: number;
  /**
   * Idle connections nginx keeps open to the backend (`upstream { keepalive N; }`). Default 0: none,
   * as in the plain `grpc_pass grpc://host:port` setup, where nginx opens a backend connection per call.
   */
  readonly upstreamKeepalive?: number;
  /** `grpc_read_timeout`, seconds: how long nginx lets a call go without a message from the backend. Default 60, nginx's own. */
  readonly readTimeout?: number;
}

/** A running nginx. */
export interface NginxProxy {
  /** The port clients dial on 127.0.0.1 (HTTP/2 without TLS). */
  readonly port: number;
  /** The client connections nginx has accepted on `port` so far (from stub_status, its own requests taken out). */
  accepted(): Promise<number>;
  /** The client connections open on `port` now. */
  active(): Promise<number>;
  /** nginx's error log so far (it logs each failed backend connection: "connect() failed (111: Connection refused)"). */
  errorLog(): string;
  /** Stops nginx (fast shutdown) and removes its directory. Idempotent. */
  close(): Promise<void>;
}

/** A port of 127.0.0.1 that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function config(dir: string, port: number, statusPort: number, options: NginxProxyOptions): string {
  const keepalive = options.upstreamKeepalive ?? 0;
  const upstream =
    keepalive > 0
      ? `upstream backend { server 127.0.0.1:${String(options.backendPort)}; keepalive ${String(keepalive)}; }`
      : '';
  const target = keepalive > 0 ? 'backend' : `127.0.0.1:${String(options.backendPort)}`;
  return `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  ${upstream}
  server {
    listen 127.0.0.1:${String(port)} http2;
    location / {
      grpc_pass grpc://${target};
      grpc_read_timeout ${String(options.readTimeout ?? 60)}s;
    }
  }
  server {
    listen 127.0.0.1:${String(statusPort)};
    location = /status { stub_status; }
  }
}
`;
}

/** Starts nginx in front of `backendPort`; resolves once it accepts connections. */
export async function startNginxProxy(options: NginxProxyOptions): Promise<NginxProxy> {
  if (nginxPath === undefined) throw new Error('nginx is not installed');
  const binary = nginxPath;
  for (let tries = 1; ; tries++) {
    const dir = mkdtempSync(join(tmpdir(), 'redialer-nginx-'));
    const port = await freePort();
    const statusPort = await freePort();
    writeFileSync(join(dir, 'nginx.conf'), config(dir, port, statusPort, options));
    const child = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = once(child, 'exit');
    const started = await waitUntilListening(child, port, statusPort);
    if (started) return await proxy(child, dir, port, statusPort, exited);
    child.kill('SIGKILL');
    await exited;
    const log = readLog(dir);
    rmSync(dir, { recursive: true, force: true });
    // A port taken between choosing it and nginx binding it: choose again.
    if (tries < 3 && (stderr + log).includes('Address already in use')) continue;
    throw new Error(`nginx did not start: ${stderr}${log}`.trim());
  }
}

async function waitUntilListening(child: ChildProcess, port: number, statusPort: number): Promise<boolean> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    if ((await canConnect(port)) && (await canConnect(statusPort))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

function readLog(dir: string): string {
  const path = join(dir, 'error.log');
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

async function proxy(
  child: ChildProcess,
  dir: string,
  port: number,
  statusPort: number,
  exited: Promise<unknown>,
): Promise<NginxProxy> {
  let closed: Promise<void> | undefined;
  let requests = 0;
  const status = async (): Promise<{ active: number; accepts: number }> => {
    requests += 1;
    const body = await new Promise<string>((resolve, reject) => {
      get({ host: '127.0.0.1', port: statusPort, path: '/status', agent: false }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          resolve(text);
        });
      }).on('error', reject);
    });
    // "Active connections: 1 \nserver accepts handled requests\n 3 3 3 \n…"
    const active = /Active connections:\s*(\d+)/.exec(body);
    const counts = /\n\s*(\d+)\s+(\d+)\s+(\d+)/.exec(body);
    if (active === null || counts === null) throw new Error(`unexpected stub_status: ${body}`);
    return { active: Number(active[1]), accepts: Number(counts[1]) };
  };
  // nginx counts the probes of waitUntilListening and each status request too: count from here, and
  // take out the status requests made since.
  const baseline = (await status()).accepts;
  const since = requests;
  return {
    port,
    accepted: async () => {
      const { accepts } = await status();
      return accepts - baseline - (requests - since);
    },
    // The status request itself is one of the active connections.
    active: async () => (await status()).active - 1,
    errorLog: () => readLog(dir),
    close: () => {
      closed ??= (async () => {
        await terminate(child, exited, 3_000);
        rmSync(dir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}
