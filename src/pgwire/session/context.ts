/**
 * What a Session is given by the server that accepted its connection (./server.ts), and where
 * both report. Kept apart from both so that neither imports the other's module for a type.
 */
import type { SecureContext } from 'node:tls';
import type { Database } from '../../table/index.js';
import type { PaxdError } from '../../types/index.js';
import type { AuthConfig } from './auth.js';

/** Where the server reports connections and failures; pino's Logger fits (the daemon's). */
export interface WireLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface SessionContext {
  readonly db: Database;
  readonly processId: number;
  readonly secretKey: number;
  readonly maxMessageSize: number;
  /** Milliseconds a client has to complete its startup and authentication (PostgreSQL's authentication_timeout). */
  readonly startupTimeoutMs: number;
  /**
   * Asked once the client has authenticated, before AuthenticationOk: the server takes a
   * connection slot, or answers why not (53300 past max connections). A client still in its
   * startup holds no slot (./server.ts).
   */
  readonly admit?: () => PaxdError | null;
  readonly auth: AuthConfig;
  /** Set when TLS is configured: SSLRequest is answered 'S'. */
  readonly tls: SecureContext | null;
  /** Asks the server to cancel the running statement of the session with these keys (CancelRequest). */
  readonly cancel: (processId: number, secretKey: number) => void;
  /** The default work_mem of a session, in bytes (the engine's when unset). */
  readonly workMem?: number;
  /** The default statement_timeout of a session, in ms (0 when unset). */
  readonly statementTimeoutMs?: number;
  readonly log?: WireLog;
}
