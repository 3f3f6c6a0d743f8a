/**
 * Password authentication, server side: SCRAM-SHA-256 (RFC 5802, RFC 7677) by default, md5
 * only when configured, trust only on loopback and only when configured (docs/WIRE.md). paxd
 * stores verifiers exactly as PostgreSQL's pg_authid.rolpassword holds them, never passwords:
 *
 *   SCRAM-SHA-256$<iterations>:<salt base64>$<StoredKey base64>:<ServerKey base64>
 *   md5<md5 hex of password + user name>
 *
 *   const v = scramVerifier('s3cret');            // 'SCRAM-SHA-256$4096:…$…:…'
 *   const auth: AuthConfig = { users: { alice: v } };
 *
 * The exchange (https://www.postgresql.org/docs/15/sasl-authentication.html):
 *
 *   S: AuthenticationSASL        "SCRAM-SHA-256\0\0"
 *   C: SASLInitialResponse       mechanism\0, int32 n, client-first-message "n,,n=,r=<cnonce>"
 *   S: AuthenticationSASLContinue server-first-message "r=<cnonce><snonce>,s=<salt>,i=<iter>"
 *   C: SASLResponse              client-final-message "c=biws,r=<nonce>,p=<proof>"
 *   S: AuthenticationSASLFinal   "v=<server signature>", then AuthenticationOk
 *
 * A user who does not exist goes through the same exchange against a made-up verifier, so the
 * answer (28P01 at the end) never tells whether the user exists, as PostgreSQL's mock
 * authentication does.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PaxdError, SQLSTATE } from '../../types/index.js';
import { protocolViolation } from '../codec/errors.js';
import { SCRAM_ITERATIONS, SCRAM_MECHANISM, SCRAM_SALT_BYTES, isMd5Verifier, parseScramVerifier, type ScramSecret } from '../../table/index.js';

// The verifiers themselves are the roles catalog's (src/table/verifier.ts: CREATE ROLE … PASSWORD makes them too).
export { SCRAM_ITERATIONS, SCRAM_MECHANISM, isMd5Verifier, md5Verifier, parseScramVerifier, scramStoredKey, scramVerifier, type ScramSecret } from '../../table/index.js';

export type AuthMethod = 'scram-sha-256' | 'md5' | 'trust';

/**
 * Who may connect and how; a plain object so the daemon's config loader (docs/DAEMON.md) can fill it.
 *
 *   { "method": "scram-sha-256", "users": { "alice": "SCRAM-SHA-256$4096:…" } }
 */
export interface AuthConfig {
  /** Default 'scram-sha-256'. 'trust' lets anyone in, and only on a loopback address. */
  readonly method?: AuthMethod;
  /**
   * User name → verifier (SCRAM-SHA-256$… or md5…), as `paxd passwd` prints them. Read at each
   * login, so the daemon may change it in place (roles created by CREATE ROLE … PASSWORD).
   */
  readonly users?: Readonly<Record<string, string>>;
  /**
   * What the configured users may do (src/table/privileges.ts): a user without an entry is a
   * superuser; `readAllData` without `superuser` is a read-only role (pg_read_all_data).
   */
  readonly attributes?: Readonly<Record<string, UserAttributes>>;
}

/** A configured user's rights: `"read_only": true` in the users file, or `--read-only-users`. */
export interface UserAttributes {
  readonly superuser: boolean;
  readonly readAllData: boolean;
}

const NONCE_BYTES = 18;

function hmac(key: Buffer, data: string | Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

/** Checks a config before the server starts: every verifier must be well-formed. */
export function checkAuthConfig(auth: AuthConfig): void {
  const method = auth.method ?? 'scram-sha-256';
  if (method !== 'scram-sha-256' && method !== 'md5' && method !== 'trust')
    throw badAuthConfig(`unknown authentication method "${String(method)}": use scram-sha-256, md5 or trust`);
  for (const [user, v] of Object.entries(auth.users ?? {})) {
    if (typeof v !== 'string' || (parseScramVerifier(v) === null && !isMd5Verifier(v)))
      throw badAuthConfig(`the verifier of user "${user}" is neither SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey> nor md5<32 hex digits> (make one with paxd passwd)`);
  }
}

function badAuthConfig(message: string): PaxdError {
  return new PaxdError('usage', SQLSTATE.invalid_parameter_value, message);
}

/** 28P01, the same words whatever went wrong: unknown user, wrong password, wrong verifier kind. */
export function passwordFailed(user: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.invalid_password, `password authentication failed for user "${user}"`);
}

/** 08P01 for a SCRAM message that does not follow RFC 5802 (PostgreSQL: "malformed SCRAM message"). */
function malformed(detail: string): PaxdError {
  return new PaxdError('invalid_input', SQLSTATE.protocol_violation, 'malformed SCRAM message', { detail });
}

/**
 * A fixed secret per server for made-up verifiers: the same unknown user always gets the same
 * salt, as a real one would (PostgreSQL's scram_mock_salt).
 */
const MOCK_NONCE = randomBytes(32);

function mockSecret(user: string): ScramSecret {
  const salt = hmac(MOCK_NONCE, `salt:${user}`).subarray(0, SCRAM_SALT_BYTES);
  return { iterations: SCRAM_ITERATIONS, salt, storedKey: randomBytes(32), serverKey: randomBytes(32) };
}

/** What a step of an exchange answers: bytes for the client, then whether it is over. */
export type AuthStep =
  | { readonly kind: 'continue'; readonly data: Buffer }
  | { readonly kind: 'final'; readonly data: Buffer }
  | { readonly kind: 'fail'; readonly error: PaxdError };

/** The server side of one SCRAM-SHA-256 exchange. */
export class ScramExchange {
  private state: 'initial' | 'final' | 'done' = 'initial';
  private readonly secret: ScramSecret;
  private readonly real: boolean;
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';
  private gs2Header = '';

  constructor(
    private readonly user: string,
    verifier: string | undefined,
  ) {
    const s = verifier === undefined ? null : parseScramVerifier(verifier);
    this.real = s !== null;
    this.secret = s ?? mockSecret(user);
  }

  /** SASLInitialResponse: the mechanism and the client-first-message. */
  initial(mechanism: string, data: Buffer | null): AuthStep {
    if (this.state !== 'initial') throw protocolViolation('unexpected SASLInitialResponse');
    if (mechanism !== SCRAM_MECHANISM)
      throw new PaxdError('invalid_input', SQLSTATE.protocol_violation, 'client selected an invalid SASL authentication mechanism');
    if (data === null) throw malformed('The message is empty.');
    const msg = data.toString('utf8');
    // gs2-header: channel binding flag, optional authzid; then client-first-message-bare.
    const m = /^([ny]|p=[^,]*),(a=[^,]*)?,(.*)$/s.exec(msg);
    if (m === null) throw malformed(`Unexpected client-first-message "${msg}".`);
    if (m[1]!.startsWith('p=')) throw new PaxdError('invalid_input', SQLSTATE.protocol_violation, 'channel binding is not supported by this server');
    if (m[2] !== undefined) throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, 'client uses authorization identity, but it is not supported');
    this.gs2Header = msg.slice(0, msg.length - m[3]!.length);
    this.clientFirstBare = m[3]!;
    const attrs = parseAttributes(this.clientFirstBare);
    const clientNonce = attrs.get('r');
    if (!attrs.has('n') || clientNonce === undefined || clientNonce === '' || !/^[\x21-\x2b\x2d-\x7e]+$/.test(clientNonce))
      throw malformed(`Could not parse client-first-message "${this.clientFirstBare}".`);
    if (attrs.has('m')) throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, 'extensions are not supported');
    this.nonce = clientNonce + randomBytes(NONCE_BYTES).toString('base64');
    this.serverFirst = `r=${this.nonce},s=${this.secret.salt.toString('base64')},i=${this.secret.iterations}`;
    this.state = 'final';
    return { kind: 'continue', data: Buffer.from(this.serverFirst, 'utf8') };
  }

  /** SASLResponse: the client-final-message with the proof. */
  final(data: Buffer): AuthStep {
    if (this.state !== 'final') throw protocolViolation('unexpected SASLResponse');
    this.state = 'done';
    const msg = data.toString('utf8');
    const proofAt = msg.lastIndexOf(',p=');
    if (proofAt < 0) throw malformed('Could not find proof in client-final-message.');
    const withoutProof = msg.slice(0, proofAt);
    const attrs = parseAttributes(withoutProof);
    const binding = attrs.get('c');
    if (binding === undefined || Buffer.from(binding, 'base64').toString('utf8') !== this.gs2Header)
      throw malformed('SCRAM channel binding check failed.');
    if (attrs.get('r') !== this.nonce) throw malformed('Nonce does not match.');
    const proof = Buffer.from(msg.slice(proofAt + 3), 'base64');
    if (proof.byteLength !== 32) throw malformed('Malformed proof in client-final-message.');
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const clientSignature = hmac(this.secret.storedKey, authMessage);
    const clientKey = Buffer.alloc(32);
    for (let i = 0; i < 32; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
    const ok = timingSafeEqual(sha256(clientKey), this.secret.storedKey);
    if (!ok || !this.real) return { kind: 'fail', error: passwordFailed(this.user) };
    const serverSignature = hmac(this.secret.serverKey, authMessage);
    return { kind: 'final', data: Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8') };
  }
}

/** `a=1,b=2` → { a: '1', b: '2' } (values may contain '='). */
function parseAttributes(s: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of s.split(',')) {
    const eq = part.indexOf('=');
    if (eq !== 1) throw malformed(`Attribute expected, but found "${part}".`);
    out.set(part[0]!, part.slice(2));
  }
  return out;
}

/** The server side of md5: 'md5' + md5(md5(password + user) + salt) from the client. */
export class Md5Exchange {
  readonly salt = randomBytes(4);
  constructor(
    private readonly user: string,
    private readonly verifier: string | undefined,
  ) {}

  check(response: string): AuthStep {
    const v = this.verifier;
    if (v === undefined || !isMd5Verifier(v)) return { kind: 'fail', error: passwordFailed(this.user) };
    const expected = Buffer.from('md5' + createHash('md5').update(v.slice(3)).update(this.salt).digest('hex'));
    const got = Buffer.from(response);
    if (got.byteLength !== expected.byteLength || !timingSafeEqual(got, expected)) return { kind: 'fail', error: passwordFailed(this.user) };
    return { kind: 'final', data: Buffer.alloc(0) };
  }
}

/**
 * Which exchange a user gets: md5 only when configured and the user's verifier is md5; a
 * SCRAM verifier always means SCRAM (as PostgreSQL does under `md5` in pg_hba.conf).
 */
export function exchangeFor(auth: AuthConfig, user: string): 'trust' | 'scram' | 'md5' {
  const method = auth.method ?? 'scram-sha-256';
  if (method === 'trust') return 'trust';
  const v = Object.hasOwn(auth.users ?? {}, user) ? auth.users![user] : undefined;
  if (method === 'md5' && (v === undefined || isMd5Verifier(v))) return 'md5';
  return 'scram';
}

/** The verifier of `user`, undefined when there is none (never inherited from Object.prototype). */
export function verifierOf(auth: AuthConfig, user: string): string | undefined {
  const users = auth.users ?? {};
  return Object.hasOwn(users, user) ? users[user] : undefined;
}

/**
 * The AuthConfig of `paxd serve`: the config's users, plus those of a `--users` JSON file
 * (`{ "method"?: "md5", "users": { … } }` or just the users object). A user is a verifier (a
 * superuser, as every user was before roles), or an object saying what it may do:
 *
 *   { "users": { "admin":     "SCRAM-SHA-256$4096:…",
 *                "dashboard": { "password": "SCRAM-SHA-256$4096:…", "read_only": true },
 *                "loader":    { "password": "SCRAM-SHA-256$4096:…", "superuser": false } } }
 *
 * `read_only`: SELECT on every table and nothing else (PostgreSQL's pg_read_all_data);
 * `"superuser": false`: only what GRANT gives it. `readOnlyUsers` (`--read-only-users a,b`,
 * config `read_only_users`) makes users read-only too, wherever they are defined.
 * SCRAM-SHA-256 unless a method is said; trust only when asked for (and then only on loopback).
 * With no user anywhere the daemon makes one (src/daemon/bootstrap.ts). A users file with no
 * user in it is refused: it would let nobody in, and it is not a way of asking for trust.
 */
export function serveAuthConfig(
  configUsers: Readonly<Record<string, string>>,
  usersFile: string | undefined,
  method: string | undefined,
  readOnlyUsers: readonly string[] = [],
): AuthConfig {
  let fileUsers: Record<string, unknown> = {};
  let fileMethod: string | undefined;
  if (usersFile !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(usersFile, 'utf8'));
    } catch (e) {
      throw badAuthConfig(`cannot read users file ${usersFile}: ${(e as Error).message}`);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw badAuthConfig(`users file ${usersFile}: expected a JSON object`);
    const o = json as Record<string, unknown>;
    if (typeof o.users === 'object' && o.users !== null) {
      fileUsers = o.users as Record<string, unknown>;
      if (typeof o.method === 'string') fileMethod = o.method;
    } else fileUsers = o;
  }
  const chosen = (method ?? fileMethod ?? 'scram-sha-256') as AuthMethod;
  if (usersFile !== undefined && Object.keys(fileUsers).length === 0 && chosen !== 'trust') throw emptyUsersFile(usersFile);
  const users: Record<string, string> = { ...configUsers };
  const attributes: Record<string, UserAttributes> = {};
  for (const [user, entry] of Object.entries(fileUsers)) {
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
      const e = entry as Record<string, unknown>;
      const unknown = Object.keys(e).filter((k) => k !== 'password' && k !== 'read_only' && k !== 'superuser');
      if (unknown.length > 0) throw badAuthConfig(`users file ${usersFile}: user "${user}": unknown key "${unknown[0]}" (expected password, read_only, superuser)`);
      if (typeof e.password !== 'string') throw badAuthConfig(`users file ${usersFile}: user "${user}": "password" must be a verifier string (make one with paxd passwd)`);
      for (const k of ['read_only', 'superuser'] as const)
        if (e[k] !== undefined && typeof e[k] !== 'boolean') throw badAuthConfig(`users file ${usersFile}: user "${user}": "${k}" must be true or false, got ${JSON.stringify(e[k])}`);
      if (e.read_only === true && e.superuser === true) throw badAuthConfig(`users file ${usersFile}: user "${user}" cannot be both read_only and superuser`);
      users[user] = e.password;
      if (e.read_only === true || e.superuser === false) attributes[user] = { superuser: false, readAllData: e.read_only === true };
    } else users[user] = entry as string;
  }
  for (const user of readOnlyUsers) {
    if (!Object.hasOwn(users, user) && chosen !== 'trust') throw badAuthConfig(`read-only user "${user}" is not a configured user (add it to the users file or the config's users)`);
    attributes[user] = { superuser: false, readAllData: true };
  }
  const auth: AuthConfig = { method: chosen, users, ...(Object.keys(attributes).length > 0 ? { attributes } : {}) };
  checkAuthConfig(auth);
  return auth;
}

function emptyUsersFile(file: string): PaxdError {
  return badAuthConfig(
    `users file ${file} has no users: nobody could log in. Add one (echo -n PASSWORD | paxd passwd NAME prints its verifier), or leave --users out to get the generated "paxd" user; trust must be asked for with --auth trust (loopback only)`,
  );
}
