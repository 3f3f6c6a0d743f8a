/**
 * The PostgreSQL wire protocol (v3) server: psql, drivers and postgres_fdw talk to paxd
 * through it (docs/WIRE.md). `paxd serve` uses startServer and parseListen; nothing else leaves
 * this folder.
 *
 * codec/ — bytes and messages, no I/O, no state (as pg-protocol keeps its parser apart):
 *   constants.ts   every protocol byte, named: message codes, startup codes, limits
 *   frames.ts      FrameReader: a byte stream → startup packets and messages, lengths checked first
 *   frontend.ts    one parse function per frontend message
 *   backend.ts     one writer per backend message
 *   oids.ts        PostgreSQL type OIDs, sizes and typmods of paxd's types
 *   binary.ts      binary-format parameter and result values
 *   row-encoder.ts result rows → DataRow messages
 *   errors.ts      this layer's SQLSTATEs and messages
 *
 * session/ — connections: I/O, timers and state, built on the codec:
 *   params.ts      run-time parameters: SET/SHOW/RESET, ParameterStatus
 *   statements.ts  a query string → statements, sorted into session commands and engine queries
 *   auth.ts        SCRAM-SHA-256 and md5 verifiers and exchanges, AuthConfig
 *   context.ts     what the server gives a session (SessionContext), WireLog
 *   session.ts     one connection: frames in, TLS, the simple query protocol, COPY FROM's sub-protocol
 *   startup.ts     the startup packet and authentication, up to ReadyForQuery
 *   extended.ts    Parse, Bind, Describe, Execute, Close
 *   portals.ts     prepared statements and portals
 *   runner.ts      one statement as the current one: cancel, statement_timeout, the engine or the session
 *   tx-block.ts    the transaction status and block: BEGIN/COMMIT/ROLLBACK/SAVEPOINT, implicit blocks
 *   settings.ts    SET/RESET/SHOW as statements
 *   setting-stack.ts what a transaction's or savepoint's end undoes of SET and SET LOCAL
 *   output.ts      outgoing messages: chunked, paced; an Outcome as messages
 *   outcome.ts     what a statement produced; values and errors as message fields
 *   transaction.ts a transaction block: savepoints and pinned snapshots
 *   cursor.ts      DECLARE/FETCH/MOVE over a materialized or streamed result
 *   copy.ts        COPY FROM STDIN / TO STDOUT in text and CSV
 *   catalog.ts     the catalog queries of IMPORT FOREIGN SCHEMA
 *   server.ts      listening, connection limits, shutdown
 *   listen.ts      `--listen host:port`
 */
export { startServer, isLoopback, type ServerOptions, type RunningServer, type TlsConfig, type WireLog } from './session/server.js';
export { scramVerifier, md5Verifier, checkAuthConfig, serveAuthConfig, parseScramVerifier, isMd5Verifier, scramStoredKey, SCRAM_ITERATIONS, type AuthConfig, type AuthMethod, type UserAttributes } from './session/auth.js';
export { parseListen, formatListen, DEFAULT_LISTEN, DEFAULT_HOST, DEFAULT_PORT, type ListenAddress } from './session/listen.js';
export { SERVER_VERSION } from './session/params.js';
