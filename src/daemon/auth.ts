/**
 * HTTP Basic authentication against SCRAM-SHA-256 verifiers ("the same
 * authentication as the wire server"). A verifier is PostgreSQL's
 * `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (RFC 5802, RFC 7677); a password
 * matches when
 *
 *   SaltedPassword = PBKDF2-HMAC-SHA-256(password, salt, iterations)
 *   StoredKey      = SHA-256(HMAC(SaltedPassword, "Client Key"))
 *
 * equals the verifier's StoredKey (compared in constant time). The password is used as its
 * UTF-8 bytes (PostgreSQL applies SASLprep, which leaves ASCII passwords unchanged).
 */
import { createHash, createHmac, pbkdf2, timingSafeEqual } from 'node:crypto';

interface Verifier {
  iterations: number;
  salt: Buffer;
  storedKey: Buffer;
}

const VERIFIER = /^SCRAM-SHA-256\$(\d+):([A-Za-z0-9+/]+=*)\$([A-Za-z0-9+/]+=*):([A-Za-z0-9+/]+=*)$/;

export function parseVerifier(v: string): Verifier | null {
  const m = VERIFIER.exec(v);
  if (m === null) return null;
  return { iterations: Number(m[1]), salt: Buffer.from(m[2]!, 'base64'), storedKey: Buffer.from(m[3]!, 'base64') };
}

/** Whether `password` matches the SCRAM-SHA-256 `verifier`. */
export async function checkPassword(verifier: string, password: string): Promise<boolean> {
  const v = parseVerifier(verifier);
  if (v === null) return false;
  const salted = await new Promise<Buffer>((resolve, reject) =>
    pbkdf2(Buffer.from(password, 'utf8'), v.salt, v.iterations, 32, 'sha256', (e, key) => (e ? reject(e) : resolve(key))),
  );
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  return storedKey.length === v.storedKey.length && timingSafeEqual(storedKey, v.storedKey);
}

/** A verifier for `password` (tests, and for writing a config by hand). */
export async function makeVerifier(password: string, salt: Buffer, iterations = 4096): Promise<string> {
  const salted = await new Promise<Buffer>((resolve, reject) =>
    pbkdf2(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256', (e, key) => (e ? reject(e) : resolve(key))),
  );
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/**
 * Checks an `Authorization: Basic …` header against `users`; returns the user name, or null.
 * Successful checks are remembered (by a hash of user and password) so that a client sending
 * the same credentials on every request does not pay PBKDF2 each time.
 */
export class BasicAuth {
  private readonly ok = new Set<string>();

  constructor(private readonly users: Readonly<Record<string, string>>) {}

  get enabled(): boolean {
    return Object.keys(this.users).length > 0;
  }

  async check(header: string | undefined): Promise<string | null> {
    if (header === undefined) return null;
    const m = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header);
    if (m === null) return null;
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const verifier = Object.hasOwn(this.users, user) ? this.users[user] : undefined;
    if (verifier === undefined) return null;
    const key = createHash('sha256').update(`${user}\0${password}\0${verifier}`).digest('hex');
    if (this.ok.has(key)) return user;
    if (!(await checkPassword(verifier, password))) return null;
    if (this.ok.size > 1000) this.ok.clear();
    this.ok.add(key);
    return user;
  }
}
