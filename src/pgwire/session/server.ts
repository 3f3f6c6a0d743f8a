/**
 * The listening side: accepts connections and gives each its own Session.
 *
 *   const srv = await startServer({ db, host: '127.0.0.1', port: 0, auth: { users: { alice: scramVerifier('pw') } } });
 *   // PGPASSWORD=pw psql -h 127.0.0.1 -p ${srv.port} -U alice -d paxd
 *   await srv.close('smart');
 *
 * Authentication is SCRAM-SHA-256 unless configured otherwise; trust is refused on an address
 * that is not loopback (trust only for loopback and only when configured).
 */
import { createServer, isIPv4, type Socket } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { randomInt } from 'node:crypto';
import type { Database } from '../../table/index.js';
import { LIMITS } from '../codec/constants.js';
import { tooManyConnections, trustNotLoopback } from '../codec/errors.js';
import { DEFAULT_HOST, DEFAULT_PORT, formatListen } from './listen.js';
import { ioError, PaxdError, SQLSTATE } from '../../types/index.js';
import { Session } from './session.js';
import { checkAuthConfig, type AuthConfig } from './auth.js';
import type { WireLog } from './context.js';

export type { WireLog } from './context.js';

/** A PEM key and certificate (the text itself, not file names). */
export interface TlsConfig {
  readonly key: string | Buffer;
  readonly cert: string | Buffer;
}

export interface ServerOptions {
  readonly db: Database;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 7432; 0 picks a free port. */
  readonly port?: number;
  /** Who may connect and how (default: SCRAM-SHA-256 with no users). */
  readonly auth?: AuthConfig;
  /** When set, SSLRequest is answered 'S' and the connection continues over TLS. */
  readonly tls?: TlsConfig;
  /** Largest message accepted from a client, length included (default 1 GB - 1). */
  readonly maxMessageSize?: number;
  /**
   * Connections served at once (default 100, as PostgreSQL); a client that authenticates past
   * it gets FATAL 53300. Clients still in their startup are not counted: see maxStartups.
   */
  readonly maxConnections?: number;
  /**
   * Milliseconds a client has to finish its startup, SSL negotiation and authentication
   * included (PostgreSQL's authentication_timeout; default 60,000).
   */
  readonly startupTimeoutMs?: number;
  /**
   * Connections still in their startup held at once (default: 2 × maxConnections, at least 64,
   * as PostgreSQL lets twice its backends be forked). Past it, the oldest is dropped: a real
   * client finishes its startup in milliseconds, a stalled one (slowloris) is the oldest.
   */
  readonly maxStartups?: number;
  /** Memory one statement may use, in bytes: each session's initial work_mem (default: the engine's). */
  readonly workMem?: number;
  /** Each session's initial statement_timeout, in ms (default 0: none); SET changes it per session, RESET returns to it. */
  readonly statementTimeoutMs?: number;
  /** Connection authorized, authentication failed, protocol violations. */
  readonly log?: WireLog;
}

export interface RunningServer {
  readonly host: string;
  readonly port: number;
  /** Connections open now. */
  connections(): number;
  /**
   * Stops accepting connections, then ends every one with 57P01. 'fast' (default, SIGINT)
   * cancels running statements first; 'smart' (SIGTERM) lets them finish.
   */
  close(mode?: 'smart' | 'fast'): Promise<void>;
}

/** Loopback addresses: trust authentication is allowed on these only. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '[::1]') return true;
  return isIPv4(host) && host.startsWith('127.');
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const auth = options.auth ?? {};
  checkAuthConfig(auth);
  if (auth.method === 'trust' && !isLoopback(host)) throw trustNotLoopback(host);
  const tls = options.tls === undefined ? null : secureContext(options.tls);
  const maxMessageSize = options.maxMessageSize ?? LIMITS.defaultMaxMessage;
  const maxConnections = options.maxConnections ?? 100;
  const startupTimeoutMs = options.startupTimeoutMs ?? 60_000;
  const maxStartups = options.maxStartups ?? Math.max(2 * maxConnections, 64);
  const sessions = new Map<number, Session>();
  // Connections in their startup, oldest first (a Set keeps insertion order), and the number
  // of slots taken by connections that have authenticated.
  const starting = new Set<Session>();
  let slots = 0;
  let nextProcessId = 1;
  const cancel = (processId: number, secretKey: number) => {
    const s = sessions.get(processId);
    // A wrong key is ignored silently, as PostgreSQL does: nothing tells a guesser it was close
    // (the log says it, for the operator).
    const matched = s !== undefined && s.secretKey === secretKey;
    options.log?.info({ pid: processId, matched }, 'wire: cancel request');
    if (matched) s.cancel();
  };
  const server = createServer((socket: Socket) => {
    socket.setNoDelay(true);
    if (starting.size >= maxStartups) {
      const oldest = starting.values().next().value!;
      starting.delete(oldest);
      options.log?.warn(
        { pid: oldest.processId, remote: oldest.remoteAddress, starting: maxStartups },
        `wire: ${maxStartups} connections in their startup: dropped the oldest`,
      );
      oldest.close();
    }
    const processId = nextProcessId++;
    let slot = false;
    // Taken once the client has authenticated: a stalled startup holds none. CancelRequests
    // arrive on connections of their own and never take one, so a full server still reads them.
    const admit = (): PaxdError | null => {
      starting.delete(session);
      if (slots >= maxConnections) return tooManyConnections();
      slots++;
      slot = true;
      return null;
    };
    const session: Session = new Session(socket, {
      db: options.db,
      processId,
      secretKey: randomInt(-0x8000_0000, 0x7fff_ffff),
      maxMessageSize,
      startupTimeoutMs,
      auth,
      tls,
      cancel,
      ...(options.workMem !== undefined ? { workMem: options.workMem } : {}),
      ...(options.statementTimeoutMs !== undefined ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
      ...(options.log !== undefined ? { log: options.log } : {}),
      admit,
    });
    sessions.set(processId, session);
    starting.add(session);
    void session.done.then(() => {
      sessions.delete(processId);
      starting.delete(session);
      if (slot) slots--;
    });
  });
  const wanted = options.port ?? DEFAULT_PORT;
  await new Promise<void>((resolve, reject) => {
    const fail = (e: Error) => reject(ioError(`could not listen on ${formatListen(host, wanted)}: ${e.message}`, undefined, e));
    server.once('error', fail);
    server.listen(wanted, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    host,
    port,
    connections: () => sessions.size,
    close: async (mode = 'fast') => {
      const stopped = new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
      const open = [...sessions.values()];
      for (const s of open) s.shutdown(mode);
      await Promise.all(open.map((s) => s.done));
      await stopped;
    },
  };
}

function secureContext(t: TlsConfig): SecureContext {
  try {
    return createSecureContext({ key: t.key, cert: t.cert });
  } catch (e) {
    throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `invalid TLS key or certificate: ${(e as Error).message}`, { cause: e });
  }
}
