/**
 * Shared set-up of the C-core interop suites: skip with one printed line when python3-grpcio is
 * missing, start servers and frame counters that are stopped after each test.
 */
import { afterEach, describe } from 'vitest';
import { type CCoreOptions, type CCoreServer, ccoreVersion, startCCoreServer } from './ccore-server.js';
import { type FrameCounter, startFrameCounter } from './frame-counter.js';

const cleanup: (() => unknown)[] = [];

/** `describe` when python3-grpcio is installed; otherwise a skipped suite and one line saying why. */
export function describeCCore(name: string, body: () => void): void {
  if (ccoreVersion === undefined) {
    console.log(
      `${name}: skipped — python3-grpcio is not installed for /usr/bin/python3 (apt-get install python3-grpcio)`,
    );
    describe.skip(name, body);
    return;
  }
  describe(`${name} (C-core via grpcio ${ccoreVersion})`, () => {
    afterEach(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
    });
    body();
  });
}

/** Registers a step to run after the current test. */
export function onCleanup(step: () => unknown): void {
  cleanup.push(step);
}

/** A C-core server with a frame counter in front; both stopped after the test. */
export async function ccore(options: CCoreOptions = {}): Promise<{ server: CCoreServer; wire: FrameCounter }> {
  const server = await startCCoreServer(options);
  cleanup.push(() => server.kill());
  const wire = await startFrameCounter(server.port);
  cleanup.push(() => wire.close());
  return { server, wire };
}
