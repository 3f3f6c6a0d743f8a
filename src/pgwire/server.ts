/**
 * The listening side: accepts connections and gives each its own Session.
 *
 *   const srv = await startServer({ db, host: '127.0.0.1', port: 0 });
 *   // psql -h 127.0.0.1 -p ${srv.port} -U paxd -d paxd
 *   await srv.close();
 *
 * Authentication is trust only for now, so the server refuses to start on an address that is
 * not loopback (issue 9: trust only for loopback and only when configured).
 */
import { createServer, isIPv4, type Socket } from 'node:net';
import { randomInt } from 'node:crypto';
import type { Database } from '../database.js';
import { LIMITS } from './constants.js';
import { tooManyConnections, trustNotLoopback } from './errors.js';
import { DEFAULT_HOST, DEFAULT_PORT, formatListen } from './listen.js';
import { ioError } from '../types/index.js';
import { Session } from './session.js';

export interface ServerOptions {
  readonly db: Database;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 7432; 0 picks a free port. */
  readonly port?: number;
  /** Largest message accepted from a client, length included (default 1 GB - 1). */
  readonly maxMessageSize?: number;
  /** Connections served at once; one more is refused with 53300 (default 100, as PostgreSQL). */
  readonly maxConnections?: number;
  /** Milliseconds a client has to finish its startup before it is disconnected (default 60,000). */
  readonly startupTimeoutMs?: number;
}

export interface RunningServer {
  readonly host: string;
  readonly port: number;
  /** Connections open now. */
  connections(): number;
  /** Stops listening and ends every connection. */
  close(): Promise<void>;
}

/** Loopback addresses: trust authentication is allowed on these only. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1' || host === '[::1]') return true;
  return isIPv4(host) && host.startsWith('127.');
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  if (!isLoopback(host)) throw trustNotLoopback(host);
  const maxMessageSize = options.maxMessageSize ?? LIMITS.defaultMaxMessage;
  const maxConnections = options.maxConnections ?? 100;
  const startupTimeoutMs = options.startupTimeoutMs ?? 60_000;
  const sessions = new Set<Session>();
  let nextProcessId = 1;
  const server = createServer((socket: Socket) => {
    socket.setNoDelay(true);
    const full = sessions.size >= maxConnections;
    const session = new Session(socket, {
      db: options.db,
      processId: nextProcessId++,
      secretKey: randomInt(-0x8000_0000, 0x7fff_ffff),
      maxMessageSize,
      startupTimeoutMs,
      ...(full ? { refuse: tooManyConnections() } : {}),
    });
    sessions.add(session);
    socket.on('close', () => sessions.delete(session));
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
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        for (const s of sessions) s.close();
      }),
  };
}
