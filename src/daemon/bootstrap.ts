/**
 * Nothing is open by default (issue #18): a `paxd serve` with no users configured (no `--users`,
 * no `users` in the config, no PAXD_USERS) and no `--auth trust` gets one superuser, `paxd`,
 * with a password generated on its first start, as Jenkins' initialAdminPassword or
 * PostgreSQL's `initdb --pwfile` do it. Two files, both created exclusively with mode 0600 in
 * the daemon's state folder:
 *
 *   <state>/.paxd-password      the password, one line: read it once, keep it, delete the file
 *   <state>/.paxd-users.json    {"users": {"paxd": "SCRAM-SHA-256$4096:…"}}: the verifier, as
 *                               `paxd passwd` prints it and `--users` reads it
 *
 * Later starts read `.paxd-users.json`, so logins keep working once the password file is gone.
 * A password file without a users file (a crash between the two, or a users file removed) gets
 * its verifier made again from the password. Removing both makes a new password on the next start.
 *
 * The state folder is the store's own folder for a local store (files starting with "." are no
 * table's); for an S3 store, where a password must not be an object anyone with the bucket can
 * read, it is local: `state_dir` when configured, else `$XDG_STATE_HOME/paxd/<16 hex of the
 * store URI's sha256>/` (`~/.local/state/paxd/…` without XDG_STATE_HOME).
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { PaxdError, SQLSTATE } from '../types/index.js';
import { scramVerifier, parseScramVerifier } from '../pgwire/index.js';

export const BOOTSTRAP_USER = 'paxd';
export const PASSWORD_FILE = '.paxd-password';
export const USERS_FILE = '.paxd-users.json';

export interface Bootstrap {
  readonly user: string;
  readonly verifier: string;
  /** The password file's path (it may have been removed since). */
  readonly passwordFile: string;
  /** The password, when its file is still there (the mirror's user mapping may use it); never logged. */
  readonly password: string | null;
  /** Whether this start made the password. */
  readonly created: boolean;
  /** Files readable by others than their owner (a warning, as ssh gives one). */
  readonly tooOpen: readonly string[];
}

/** The folder holding the generated password and users file of the store `uri`. */
export function stateDir(uri: string, configured: string | null, env: NodeJS.ProcessEnv = process.env): string {
  if (configured !== null) return resolve(configured);
  if (!uri.startsWith('s3://')) return resolve(uri);
  const base = env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME !== '' ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state');
  return join(base, 'paxd', createHash('sha256').update(uri).digest('hex').slice(0, 16));
}

/** The bootstrap user of the state folder `dir`: read, or made on the first start. */
export async function bootstrapUser(dir: string): Promise<Bootstrap> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dir, PASSWORD_FILE);
  const usersFile = join(dir, USERS_FILE);
  const tooOpen: string[] = [];
  const stored = await readUsersFile(usersFile);
  if (stored !== null) {
    if (await groupOrWorldReadable(usersFile)) tooOpen.push(usersFile);
    const password = await readPassword(passwordFile);
    if (password !== null && (await groupOrWorldReadable(passwordFile))) tooOpen.push(passwordFile);
    return { user: BOOTSTRAP_USER, verifier: stored, passwordFile, password, created: false, tooOpen };
  }
  let password = await readPassword(passwordFile);
  let created = false;
  if (password === null) {
    password = randomBytes(24).toString('base64url');
    // Exclusive: of two daemons starting on one store, one writes the password, the other reads it.
    if (await writeExclusive(passwordFile, password + '\n')) created = true;
    else password = (await readPassword(passwordFile))!;
  }
  const verifier = scramVerifier(password);
  if (!(await writeExclusive(usersFile, JSON.stringify({ users: { [BOOTSTRAP_USER]: verifier } }, null, 2) + '\n'))) {
    const other = await readUsersFile(usersFile);
    if (other !== null) return { user: BOOTSTRAP_USER, verifier: other, passwordFile, password, created, tooOpen };
  }
  return { user: BOOTSTRAP_USER, verifier, passwordFile, password, created, tooOpen };
}

/** Creates `path` (mode 0600, fsynced) unless it exists; false when it did. */
async function writeExclusive(path: string, text: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw stateError(path, 'create', e);
  }
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return true;
}

/** A state file's text, or null when there is none. */
async function readStateFile(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw stateError(path, 'read', e);
  }
}

async function readPassword(path: string): Promise<string | null> {
  const text = await readStateFile(path);
  if (text === null) return null;
  const password = text.replace(/\r?\n$/, '');
  if (password === '') throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `password file ${path} is empty: remove it (and ${USERS_FILE} beside it) to have a new password made`);
  return password;
}

/** The bootstrap user's verifier in `path`, or null when there is no such file. */
async function readUsersFile(path: string): Promise<string | null> {
  const text = await readStateFile(path);
  if (text === null) return null;
  let v: unknown;
  try {
    v = (JSON.parse(text) as { users?: Record<string, unknown> }).users?.[BOOTSTRAP_USER];
  } catch {
    v = undefined;
  }
  if (typeof v !== 'string' || parseScramVerifier(v) === null)
    throw new PaxdError('usage', SQLSTATE.invalid_parameter_value, `${path}: expected {"users": {"${BOOTSTRAP_USER}": "SCRAM-SHA-256$…"}}: remove it to have it made again from ${PASSWORD_FILE}`);
  return v;
}

async function groupOrWorldReadable(path: string): Promise<boolean> {
  return ((await stat(path)).mode & 0o077) !== 0;
}

function stateError(path: string, what: 'create' | 'read', e: unknown): PaxdError {
  return new PaxdError('io', SQLSTATE.io_error, `could not ${what} file "${path}": ${(e as Error).message}`, { file: path, cause: e });
}
