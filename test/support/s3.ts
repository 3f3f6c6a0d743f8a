/**
 * A real S3 HTTP server for tests: s3rver on a free loopback port, storing in a temp folder,
 * with one bucket, and the AWS environment set so that `openStore('s3://…')` (and child
 * processes spawned afterwards) talk to it.
 *
 *   const s3 = await startS3();                 // sets AWS_ENDPOINT_URL & co. in process.env
 *   const db = await Database.open(s3.uri('t1'));  // s3://paxd-test/t1
 *   …
 *   await s3.close();
 *
 * s3rver 3.7 ignores `If-None-Match: *` on PUT (it only implements it for GET) and writes
 * objects in place, so a reader can see half an object. Real S3 stores do neither. So that
 * the tests exercise paxd's commit protocol and not s3rver's gaps, a small middleware in
 * front of s3rver's routes (CONDITIONAL_GATE below) gives it what AWS S3 and MinIO give:
 * - PUT Object and CompleteMultipartUpload with `If-None-Match: *` fail with 412
 *   PreconditionFailed when the key exists, checked and written atomically (a per-key lock);
 * - a GET/HEAD of a key waits while a PUT of that key is being written, so objects appear
 *   whole. This is test scaffolding: paxd itself sends the standard header and relies on
 *   the store enforcing it.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { ROOT } from './spawn.js';
import { tempDir } from './tmp.js';

const SELF = fileURLToPath(import.meta.url);
const GATE_STATS_PATH = '/__paxd_gate_stats';

export interface GateStats {
  created: number;
  rejected: number;
}

export interface S3Server {
  /** `http://127.0.0.1:PORT` */
  readonly endpoint: string;
  readonly port: number;
  readonly bucket: string;
  /** Folder s3rver stores objects in. */
  readonly dir: string;
  /** The AWS variables pointing at this server (also set in process.env by default). */
  readonly env: Record<string, string>;
  /** Conditional PUTs the gate let through and rejected with 412. */
  gateStats(): Promise<GateStats>;
  /** `s3://BUCKET/prefix` */
  uri(prefix?: string): string;
  close(): Promise<void>;
}

export const ACCESS_KEY = 'S3RVER'; // s3rver's built-in account
export const TEST_BUCKET = 'paxd-test';

/** A free loopback TCP port (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** The AWS environment for a store at `endpoint` (path-style, s3rver's credentials). */
export function s3Env(endpoint: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: ACCESS_KEY,
    AWS_SECRET_ACCESS_KEY: ACCESS_KEY,
    PAXD_S3_FORCE_PATH_STYLE: '1',
    // The SDK warns once per process that its 2027 releases will need Node 22.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

export async function startS3(opts: { bucket?: string; setEnv?: boolean } = {}): Promise<S3Server> {
  const bucket = opts.bucket ?? TEST_BUCKET;
  const dir = tempDir('paxd-s3rver-');
  // s3rver makes ListObjectsV2 continuation tokens with DES, which Node 17+ (OpenSSL 3) only
  // offers through the legacy provider: so it runs in a child process started with it.
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '--import', 'tsx', SELF, 'serve', dir, bucket], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // The server dies with this process, even when a test forgets close().
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  const port = await new Promise<number>((res, rej) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening (\d+)\n/.exec(out);
      if (m) {
        child.stdout.off('data', onData);
        res(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.on('error', rej);
    child.on('exit', (code) => rej(new Error(`s3rver exited with code ${code} before listening: ${out}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const env = s3Env(endpoint);
  if (opts.setEnv !== false) Object.assign(process.env, env);
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  return {
    endpoint,
    port,
    bucket,
    dir,
    env,
    gateStats: async () => (await (await fetch(`${endpoint}${GATE_STATS_PATH}`)).json()) as GateStats,
    uri: (prefix = '') => `s3://${bucket}${prefix ? '/' + prefix : ''}`,
    close: async () => {
      process.off('exit', killChild);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** In the child: s3rver with the gate, on a port the kernel picks; prints `listening PORT`. */
async function serve(dir: string, bucket: string): Promise<void> {
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket, configs: [] }],
  });
  // Koa composes its middleware array when the server starts listening: first in line.
  (server as unknown as { middleware: Middleware[] }).middleware.unshift(conditionalGate(server));
  const addr = await server.run();
  process.stdout.write(`listening ${addr.port}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop); // the parent is gone
  process.stdin.resume();
}

// ---- the conditional-write gate (see the header comment) ----

interface Ctx {
  method: string;
  path: string;
  query: Record<string, string | string[] | undefined>;
  headers: Record<string, string | string[] | undefined>;
  status: number;
  body: unknown;
  type: string;
  set(name: string, value: string): void;
}
type Middleware = (ctx: Ctx, next: () => Promise<void>) => Promise<void>;

interface Store {
  existsObject(bucket: string, key: string): Promise<boolean>;
}

function conditionalGate(server: S3rver): Middleware {
  const gate: GateStats = { created: 0, rejected: 0 };
  const store = (server as unknown as { store: Store }).store;
  /** Keys being written: readers and other writers of the key wait for the promise. */
  const busy = new Map<string, Promise<void>>();

  async function lock(key: string): Promise<() => void> {
    for (;;) {
      const held = busy.get(key);
      if (!held) break;
      await held;
    }
    let release!: () => void;
    busy.set(key, new Promise<void>((r) => (release = r)));
    return () => {
      busy.delete(key);
      release();
    };
  }

  return async (ctx, next) => {
    if (ctx.path === GATE_STATS_PATH) {
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(gate);
      return;
    }
    const parts = ctx.path.split('/').filter((p, i) => i > 0 || p !== '');
    if (parts.length < 2) return next();
    const bucket = decodeURIComponent(parts[0]!);
    const key = parts.slice(1).map(decodeURIComponent).join('/');
    const id = `${bucket}/${key}`;
    const isPut = ctx.method === 'PUT' && ctx.query.uploadId === undefined && ctx.headers['x-amz-copy-source'] === undefined;
    const isComplete = ctx.method === 'POST' && ctx.query.uploadId !== undefined;
    if (!isPut && !isComplete) {
      if (ctx.method === 'GET' || ctx.method === 'HEAD') {
        const held = busy.get(id);
        if (held !== undefined) await held;
      }
      return next();
    }
    const release = await lock(id);
    try {
      if (ctx.headers['if-none-match'] === '*' && (await store.existsObject(bucket, key))) {
        gate.rejected++;
        ctx.status = 412;
        ctx.type = 'application/xml';
        ctx.body =
          '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code>' +
          '<Message>At least one of the pre-conditions you specified did not hold</Message>' +
          `<Condition>If-None-Match</Condition><Key>${key}</Key></Error>`;
        return;
      }
      await next();
      if (ctx.status < 300 && ctx.headers['if-none-match'] === '*') gate.created++;
    } finally {
      release();
    }
  };
}

if (process.argv[1] === SELF && process.argv[2] === 'serve') await serve(process.argv[3]!, process.argv[4]!);
