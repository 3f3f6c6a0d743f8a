/**
 * HTTP Basic authentication against the wire server's verifiers (one users source: `--users`,
 * the config file's `users`, PAXD_USERS; see serveAuthConfig in src/pgwire/session/auth.ts). A SCRAM
 * verifier is PostgreSQL's `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (RFC 5802,
 * RFC 7677); a password matches when
 *
 *   SaltedPassword = PBKDF2-HMAC-SHA-256(SASLprep(password), salt, iterations)
 *   StoredKey      = SHA-256(HMAC(SaltedPassword, "Client Key"))
 *
 * equals the verifier's StoredKey (compared in constant time). An md5 verifier
 * (`md5` + md5(password + user)) matches when that hash equals it.
 *
 * Timing does not tell whether a user exists: an unknown user, and a user with an md5
 * verifier, pay the same PBKDF2 as a wrong password for a SCRAM user (a fixed dummy verifier
 * with the users' iteration count), as PostgreSQL's mock authentication does on the wire.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isMd5Verifier, parseScramVerifier, scramStoredKey, scramVerifier, SCRAM_ITERATIONS, type AuthConfig } from '../pgwire/index.js';

/** Whether `password` matches the SCRAM-SHA-256 `verifier`. */
export async function checkPassword(verifier: string, password: string): Promise<boolean> {
  const v = parseScramVerifier(verifier);
  if (v === null) return false;
  return timingSafeEqual(await scramStoredKey(password, v.salt, v.iterations), v.storedKey);
}

/** A SCRAM-SHA-256 verifier for `password` (tests, and for writing a config by hand). */
export async function makeVerifier(password: string, salt: Buffer, iterations = SCRAM_ITERATIONS): Promise<string> {
  return scramVerifier(password, iterations, salt);
}

/** What a Basic check found: the user, whether the password matched, and whether PBKDF2 ran. */
export interface BasicResult {
  /** The user name sent, or null when the header was missing or malformed. */
  readonly user: string | null;
  readonly ok: boolean;
  /** The answer came from the cache of credentials already verified. */
  readonly cached: boolean;
}

/** Successful credentials remembered, so that a client sending them on every request pays PBKDF2 once. */
const CACHE_SIZE = 1000;

/**
 * Checks `Authorization: Basic …` headers against the users of an AuthConfig. With method
 * `trust` (no users configured: loopback only) it is disabled and every request passes.
 */
export class BasicAuth {
  private readonly users: Readonly<Record<string, string>>;
  private readonly ok = new Set<string>();
  /** Keys the cache, so that it holds no plain hash of a password. */
  private readonly cacheKey = randomBytes(32);
  /** The salt and iterations of a made-up verifier, costing what the users' verifiers cost. */
  private readonly dummy: { salt: Buffer; iterations: number };

  constructor(readonly auth: AuthConfig) {
    this.users = auth.users ?? {};
    this.dummy = { salt: randomBytes(16), iterations: commonIterations(Object.values(this.users)) };
  }

  get enabled(): boolean {
    return (this.auth.method ?? 'scram-sha-256') !== 'trust';
  }

  /**
   * Under trust, the user a request names in its Basic header (any password, or none), whose
   * rights it then runs with, as a trust login over the wire does; undefined without one.
   */
  trustedUser(header: string | undefined): string | undefined {
    const creds = parseBasic(header);
    return creds === null || creds.user === '' ? undefined : creds.user;
  }

  async check(header: string | undefined): Promise<BasicResult> {
    const creds = parseBasic(header);
    if (creds === null) return { user: null, ok: false, cached: false };
    const { user, password } = creds;
    const verifier = Object.hasOwn(this.users, user) ? this.users[user] : undefined;
    const key = verifier === undefined ? null : createHmac('sha256', this.cacheKey).update(`${user}\0${password}\0${verifier}`).digest('base64');
    if (key !== null && this.ok.has(key)) return { user, ok: true, cached: true };
    const scram = verifier === undefined ? null : parseScramVerifier(verifier);
    let ok: boolean;
    if (scram !== null) ok = timingSafeEqual(await scramStoredKey(password, scram.salt, scram.iterations), scram.storedKey);
    else {
      // Unknown user, or an md5 verifier: the dummy's PBKDF2, so that the answer takes as long.
      await scramStoredKey(password, this.dummy.salt, this.dummy.iterations);
      ok = verifier !== undefined && isMd5Verifier(verifier) && md5Matches(verifier, user, password);
    }
    if (ok && key !== null) {
      if (this.ok.size >= CACHE_SIZE) this.ok.clear();
      this.ok.add(key);
    }
    return { user, ok, cached: false };
  }
}

/** `Basic base64(user:password)` (RFC 7617), or null. */
function parseBasic(header: string | undefined): { user: string; password: string } | null {
  if (header === undefined) return null;
  const m = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header);
  if (m === null) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function md5Matches(verifier: string, user: string, password: string): boolean {
  const got = Buffer.from('md5' + createHash('md5').update(password + user).digest('hex'));
  const want = Buffer.from(verifier);
  return got.byteLength === want.byteLength && timingSafeEqual(got, want);
}

/** The iteration count most of the SCRAM verifiers have (PostgreSQL's default when there are none). */
function commonIterations(verifiers: readonly string[]): number {
  const counts = new Map<number, number>();
  for (const v of verifiers) {
    const s = parseScramVerifier(v);
    if (s !== null) counts.set(s.iterations, (counts.get(s.iterations) ?? 0) + 1);
  }
  let best = SCRAM_ITERATIONS;
  let most = 0;
  for (const [iterations, n] of counts) {
    if (n > most) [best, most] = [iterations, n];
  }
  return best;
}
