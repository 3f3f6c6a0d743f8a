/**
 * The PostgreSQL wire protocol (v3) server: psql, drivers and postgres_fdw talk to paxd
 * through it (docs/WIRE.md). `paxd serve` uses startServer and parseListen; nothing else leaves
 * this folder.
 *
 *   constants.ts   every protocol byte, named: message codes, startup codes, limits
 *   frames.ts      FrameReader: a byte stream → startup packets and messages, lengths checked first
 *   frontend.ts    one parse function per frontend message
 *   backend.ts     one writer per backend message
 *   oids.ts        PostgreSQL type OIDs, sizes and typmods of paxd's types
 *   params.ts      run-time parameters: SET/SHOW/RESET, ParameterStatus
 *   statements.ts  a query string → statements, sorted into session commands and engine queries
 *   auth.ts        SCRAM-SHA-256 and md5 verifiers and exchanges, AuthConfig
 *   session.ts     one connection: startup, TLS, auth, simple and extended query protocols
 *   transaction.ts a transaction block: savepoints and pinned snapshots
 *   cursor.ts      DECLARE/FETCH/MOVE over a materialized result
 *   copy.ts        COPY FROM STDIN / TO STDOUT in text and CSV
 *   server.ts      listening, connection limits, shutdown
 *   listen.ts      `--listen host:port`
 *   errors.ts      this layer's SQLSTATEs and messages
 */
export { startServer, isLoopback, type ServerOptions, type RunningServer, type TlsConfig, type WireLog } from './server.js';
export { scramVerifier, md5Verifier, checkAuthConfig, serveAuthConfig, parseScramVerifier, isMd5Verifier, scramStoredKey, SCRAM_ITERATIONS, type AuthConfig, type AuthMethod } from './auth.js';
export { parseListen, formatListen, DEFAULT_LISTEN, DEFAULT_HOST, DEFAULT_PORT, type ListenAddress } from './listen.js';
export { SERVER_VERSION } from './params.js';
