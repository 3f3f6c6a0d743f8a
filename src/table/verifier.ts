/**
 * Password verifiers, exactly as PostgreSQL's pg_authid.rolpassword holds them, never passwords:
 *
 *   SCRAM-SHA-256$<iterations>:<salt base64>$<StoredKey base64>:<ServerKey base64>   (RFC 5802, RFC 7677)
 *   md5<md5 hex of password + user name>
 *
 *   scramVerifier('s3cret')   // 'SCRAM-SHA-256$4096:…$…:…'
 *
 * Here, below the engine, because CREATE ROLE … PASSWORD (src/engine/statements/role.ts) makes
 * them as the wire server's authentication (src/pgwire/session/auth.ts) and the HTTP API's
 * Basic check (src/daemon/auth.ts) read them: one implementation.
 */
import { createHash, createHmac, pbkdf2, pbkdf2Sync, randomBytes } from 'node:crypto';

export const SCRAM_MECHANISM = 'SCRAM-SHA-256';
/** PostgreSQL's scram_iterations default. */
export const SCRAM_ITERATIONS = 4096;
export const SCRAM_SALT_BYTES = 16;

export interface ScramSecret {
  readonly iterations: number;
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

function hmac(key: Buffer, data: string | Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

/**
 * SASLprep (RFC 4013) as PostgreSQL applies it: ASCII passwords are used as they are; others
 * are NFKC-normalized (the mapping and prohibition tables are left out, and PostgreSQL too
 * falls back to the raw bytes when a password cannot be prepared).
 */
function saslPrep(password: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, where SASLprep changes nothing
  return /^[\x00-\x7f]*$/.test(password) ? password : password.normalize('NFKC');
}

/** A SCRAM-SHA-256 verifier for `password`, with a fresh random salt. */
export function scramVerifier(password: string, iterations = SCRAM_ITERATIONS, salt: Buffer = randomBytes(SCRAM_SALT_BYTES)): string {
  const salted = pbkdf2Sync(saslPrep(password), salt, iterations, 32, 'sha256');
  const storedKey = sha256(hmac(salted, 'Client Key'));
  const serverKey = hmac(salted, 'Server Key');
  return `${SCRAM_MECHANISM}$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** An md5 verifier, as PostgreSQL stores it: 'md5' + md5(password + user). */
export function md5Verifier(user: string, password: string): string {
  return (
    'md5' +
    createHash('md5')
      .update(password + user)
      .digest('hex')
  );
}

/** The parts of a SCRAM verifier, or null when `v` is not one. */
export function parseScramVerifier(v: string): ScramSecret | null {
  const m = /^SCRAM-SHA-256\$(\d+):([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)$/.exec(v);
  if (m === null) return null;
  const storedKey = Buffer.from(m[3]!, 'base64');
  const serverKey = Buffer.from(m[4]!, 'base64');
  const iterations = Number(m[1]);
  if (storedKey.byteLength !== 32 || serverKey.byteLength !== 32 || iterations < 1) return null;
  return { iterations, salt: Buffer.from(m[2]!, 'base64'), storedKey, serverKey };
}

export function isMd5Verifier(v: string): boolean {
  return /^md5[0-9a-f]{32}$/.test(v);
}

/**
 * StoredKey = SHA-256(HMAC(PBKDF2-HMAC-SHA-256(SASLprep(password), salt, iterations), "Client Key")),
 * on the thread pool: what a plaintext password (HTTP Basic) is checked with against a SCRAM
 * verifier, with the verifier's own salt and iterations.
 */
export async function scramStoredKey(password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  const salted = await new Promise<Buffer>((resolve, reject) =>
    pbkdf2(saslPrep(password), salt, iterations, 32, 'sha256', (e, key) => (e ? reject(e) : resolve(key))),
  );
  return sha256(hmac(salted, 'Client Key'));
}
