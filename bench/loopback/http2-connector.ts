/**
 * A minimal HTTP/2 connector for the loopback benchmark. It mirrors the gRPC adapter's connector:
 * `http2.connect()`, established on the server's first SETTINGS frame ('remoteSettings'), a failure
 * on 'error' or on 'close', and teardown that destroys the session.
 */
import { type ClientHttp2Session, connect } from 'node:http2';
import { Observable } from 'rxjs';
import type { Connector } from '../../src/connector.js';

export function http2Connector(authority: string, onAttempt?: () => void): Connector<ClientHttp2Session> {
  return () =>
    new Observable<ClientHttp2Session>((subscriber) => {
      onAttempt?.();
      const session = connect(authority);
      session.once('remoteSettings', () => {
        subscriber.next(session);
      });
      session.once('error', (error) => {
        subscriber.error(error);
      });
      session.once('close', () => {
        subscriber.error(new Error('HTTP/2 session closed'));
      });
      return () => {
        session.removeAllListeners();
        session.on('error', () => undefined); // late socket errors after teardown are expected
        session.destroy();
      };
    });
}
