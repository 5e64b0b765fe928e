/**
 * A bench helper in a process of its own, asked one thing at a time over IPC: each message is answered
 * with `{ ok: true, … }` or `{ ok: false, error }`.
 */
import { type ChildProcess, fork } from 'node:child_process';

/** An answer from the child. */
export interface Reply {
  readonly ok: boolean;
  readonly error?: string;
  readonly [key: string]: unknown;
}

export class IpcChild {
  readonly #child: ChildProcess;

  /** Forks `module` (a URL of a compiled module next to the caller) with `args`, and Node options `execArgv`. */
  constructor(module: URL, args: readonly string[] = [], execArgv: readonly string[] = []) {
    this.#child = fork(module, args, {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [...process.execArgv, ...execArgv],
    });
  }

  /** Sends `message` and waits for the answer; rejects with the child's error. */
  ask(message: object): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.#child.once('message', (reply: Reply) => {
        if (reply.ok) resolve(reply);
        else reject(new Error(reply.error));
      });
      this.#child.send(message);
    });
  }

  /** Disconnects; the child closes what it holds and exits. */
  close(): void {
    this.#child.disconnect();
  }
}

/**
 * The child's side: answers each message with `handle`'s result as `{ ok: true, … }`, or its throw or
 * rejection as `{ ok: false, error }`; on the parent's disconnect, runs `onDisconnect`, which ends the
 * process.
 */
export function answerIpc(handle: (message: never) => object | Promise<object>, onDisconnect: () => void): void {
  // Each child's messages are of its own type, which the parent's side (IpcChild.ask) sends.
  process.on('message', (message: unknown) => {
    Promise.resolve()
      .then(() => handle(message as never))
      .then(
        (answer) => process.send?.({ ok: true, ...answer }),
        (error: unknown) =>
          process.send?.({ ok: false, error: error instanceof Error ? error.message : String(error) }),
      );
  });
  process.on('disconnect', onDisconnect);
}
