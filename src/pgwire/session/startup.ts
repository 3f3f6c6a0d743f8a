/**
 * A connection's startup and authentication (https://www.postgresql.org/docs/15/protocol-flow.html#id-1.10.6.7.3):
 * the StartupMessage's user and settings, then SCRAM-SHA-256, md5 or trust, then
 * AuthenticationOk, ParameterStatus for every reported parameter and BackendKeyData. A
 * CancelRequest arrives as a startup packet of its own connection. SSLRequest is answered by
 * the session before any of this (./session.ts receive).
 *
 *   startup ──StartupMessage──▶ AuthenticationSASL | AuthenticationMD5Password | (trust)
 *      ▼ PasswordMessage / SASLInitialResponse / SASLResponse …
 *   AuthenticationOk, ParameterStatus…, BackendKeyData ──▶ the session is ready
 */
import { PaxdError, SQLSTATE, unreachable } from '../../types/index.js';
import { FRONTEND, LIMITS, STARTUP } from '../codec/constants.js';
import type { FrameReader } from '../codec/frames.js';
import * as be from '../codec/backend.js';
import { parsePassword, parseSaslInitial, parseStartup } from '../codec/frontend.js';
import { expectedPassword, noUser, unencryptedAfterSsl, unsupportedProtocol } from '../codec/errors.js';
import { exchangeFor, Md5Exchange, SCRAM_MECHANISM, ScramExchange, verifierOf } from './auth.js';
import { SessionParams } from './params.js';
import type { SessionContext } from './context.js';
import type { Output } from './output.js';

type Auth = { readonly kind: 'scram'; readonly ex: ScramExchange; started: boolean } | { readonly kind: 'md5'; readonly ex: Md5Exchange };

/** What the connection does for its startup: end it, and learn that the client is in. */
export interface StartupHost {
  close(): void;
  readonly remoteAddress: string | undefined;
  tls(): boolean;
  /** The client has authenticated; AuthenticationOk and the rest are sent. */
  authenticated(params: SessionParams): void;
}

export class Startup {
  private auth: Auth | null = null;
  private params: SessionParams | null = null;
  /** The startup packet's user ('' before it). */
  user = '';

  constructor(
    private readonly ctx: SessionContext,
    private readonly reader: FrameReader,
    private readonly out: Output,
    private readonly host: StartupHost,
  ) {}

  /** Whether a password message is awaited (the StartupMessage came, authentication has not ended). */
  get authenticating(): boolean {
    return this.auth !== null;
  }

  /** A startup packet: StartupMessage or CancelRequest (SSLRequest and GSSENCRequest are the session's). */
  packet(code: number, body: Buffer): void {
    const p = parseStartup(code, body);
    switch (p.kind) {
      case 'ssl':
      case 'gssenc':
        // Handled in Session.receive; a second request after TLS is up is a protocol violation.
        throw unencryptedAfterSsl();
      case 'cancel':
        // PostgreSQL answers a CancelRequest with nothing: it closes the connection.
        this.ctx.cancel(p.processId, p.secretKey);
        this.host.close();
        return;
      case 'startup': {
        if (p.major !== 3) throw unsupportedProtocol(code);
        const user = p.params.get('user');
        if (user === undefined || user === '') throw noUser();
        const params = new SessionParams({
          user,
          applicationName: p.params.get('application_name') ?? '',
          ...(this.ctx.workMem !== undefined ? { workMem: this.ctx.workMem } : {}),
          ...(this.ctx.statementTimeoutMs !== undefined ? { statementTimeoutMs: this.ctx.statementTimeoutMs } : {}),
        });
        const unknownOptions: string[] = [];
        for (const [name, value] of p.params) {
          if (name === 'user' || name === 'database' || name === 'application_name' || name === 'replication') continue;
          if (name.startsWith('_pq_.')) unknownOptions.push(name);
          else if (name === 'options') for (const [k, v] of startupOptions(value)) params.setDefault(k, v);
          else params.setDefault(name, value);
        }
        if (p.minor > 0 || unknownOptions.length > 0) this.out.send(be.negotiateProtocolVersion(0, unknownOptions));
        this.params = params;
        this.user = user;
        const how = exchangeFor(this.ctx.auth, user);
        const verifier = verifierOf(this.ctx.auth, user);
        if (how === 'trust') return this.authenticated();
        if (how === 'md5') {
          const ex = new Md5Exchange(user, verifier);
          this.auth = { kind: 'md5', ex };
          this.out.send(be.authenticationMD5Password(ex.salt));
        } else {
          this.auth = { kind: 'scram', ex: new ScramExchange(user, verifier), started: false };
          this.reader.passwordLimit = LIMITS.saslMessage;
          this.out.send(be.authenticationSASL([SCRAM_MECHANISM]));
        }
        return;
      }
      default:
        return unreachable(p);
    }
  }

  /** A PasswordMessage / SASLInitialResponse / SASLResponse while authenticating. */
  password(code: number, body: Buffer): void {
    if (code === FRONTEND.terminate) return this.host.close();
    if (code !== FRONTEND.password) throw expectedPassword(code);
    const a = this.auth!;
    let step;
    if (a.kind === 'md5') step = a.ex.check(parsePassword(body).password);
    else if (!a.started) {
      a.started = true;
      const m = parseSaslInitial(body);
      step = a.ex.initial(m.mechanism, m.data);
    } else step = a.ex.final(body);
    switch (step.kind) {
      case 'fail':
        throw step.error;
      case 'continue':
        this.out.send(be.authenticationSASLData('continue', step.data));
        return;
      case 'final':
        if (a.kind === 'scram') this.out.send(be.authenticationSASLData('final', step.data));
        this.authenticated();
        return;
      default:
        return unreachable(step);
    }
  }

  private authenticated(): void {
    const refused = this.ctx.admit?.() ?? null;
    if (refused !== null) throw refused;
    this.ctx.log?.info(
      { pid: this.ctx.processId, user: this.user, remote: this.host.remoteAddress, tls: this.host.tls(), auth: this.auth?.kind ?? 'trust' },
      'wire: connection authorized',
    );
    this.auth = null;
    this.reader.passwordLimit = LIMITS.password;
    const params = this.params!;
    this.out.send(be.authenticationOk());
    for (const r of params.reported()) this.out.send(be.parameterStatus(r.name, r.value));
    this.out.send(be.backendKeyData(this.ctx.processId, this.ctx.secretKey));
    this.host.authenticated(params);
  }
}

/** Whether a startup frame is answered at once, before anything queued: SSLRequest and GSSENCRequest. */
export function isEncryptionRequest(code: number): boolean {
  return code === STARTUP.sslRequest || code === STARTUP.gssEncRequest;
}

/**
 * The startup packet's `options` (libpq's PGOPTIONS): `-c name=value` and `--name=value`
 * settings, separated by spaces, `\ ` for a space inside a value.
 *
 *   startupOptions('-c statement_timeout=5s --work_mem=64MB')   // [['statement_timeout', '5s'], ['work_mem', '64MB']]
 */
export function startupOptions(options: string): [string, string][] {
  const words: string[] = [];
  let w = '';
  for (let i = 0; i < options.length; i++) {
    const ch = options[i]!;
    if (ch === '\\' && i + 1 < options.length) w += options[++i];
    else if (/\s/.test(ch)) {
      if (w !== '') words.push(w);
      w = '';
    } else w += ch;
  }
  if (w !== '') words.push(w);
  const out: [string, string][] = [];
  for (let i = 0; i < words.length; i++) {
    let setting = words[i]!;
    if (setting === '-c' && i + 1 < words.length) setting = words[++i]!;
    else if (setting.startsWith('-c')) setting = setting.slice(2);
    else if (setting.startsWith('--')) setting = setting.slice(2);
    else
      throw new PaxdError('unsupported', SQLSTATE.feature_not_supported, `startup option "${words[i]}" is not supported: only -c name=value and --name=value`);
    const eq = setting.indexOf('=');
    if (eq <= 0) throw new PaxdError('invalid_input', SQLSTATE.syntax_error, `-c ${setting} requires a value`);
    out.push([setting.slice(0, eq).replace(/-/g, '_'), setting.slice(eq + 1)]);
  }
  return out;
}
