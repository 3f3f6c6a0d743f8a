/**
 * A fault-injecting HTTP proxy on loopback, in front of an S3 server (test/support/s3.ts).
 * Each request is, with probability `rate`, given one fault of the enabled kinds:
 *
 *   500     answers 500 InternalError without forwarding
 *   503     answers 503 SlowDown without forwarding
 *   drop    closes the connection without forwarding (the request never arrived)
 *   lost    forwards, waits for the full answer, then closes the connection: the request
 *           WAS applied but the client never hears so (the hard case for conditional PUTs)
 *   cut     forwards and sends the status, headers and half the body, then closes
 *   slow    forwards after `slowMs` (longer than the client's attempt timeout in tests)
 *
 * Bounded: at most `maxFaults` faults, and none after `untilMs` from start, so a test always
 * ends. Deterministic for a seed given the same request order.
 *
 *   const proxy = await startFaultProxy(s3.endpoint, { rate: 0.2, seed: 7 });
 *   new S3Store({ bucket, clientConfig: { endpoint: proxy.endpoint } });
 *   …; proxy.counts   // { requests: 812, '500': 30, lost: 29, … }
 *   await proxy.close();
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { unreachable } from '../../src/types/errors.js';

export const FAULT_KINDS = ['500', '503', 'drop', 'lost', 'cut', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultProxyOptions {
  /** Probability that a request gets a fault. Default 0.2. */
  rate?: number;
  kinds?: readonly FaultKind[];
  seed?: number;
  /** Stop injecting after this many faults. Default unbounded. */
  maxFaults?: number;
  /** Stop injecting this long after start. Default unbounded. */
  untilMs?: number;
  /** Delay of a 'slow' fault. Default 500 ms. */
  slowMs?: number;
  /** Only requests for which this is true may get a fault (method, URL path with query). */
  filter?: (method: string, url: string) => boolean;
}

export interface FaultProxy {
  readonly endpoint: string;
  /** Requests seen and faults injected, by kind. */
  readonly counts: Record<'requests' | 'faults' | FaultKind, number>;
  /** Turns injection on or off (e.g. off to verify through the same proxy). */
  setRate(rate: number): void;
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string, opts: FaultProxyOptions = {}): Promise<FaultProxy> {
  const up = new URL(upstream);
  let rate = opts.rate ?? 0.2;
  const kinds = opts.kinds ?? FAULT_KINDS;
  const slowMs = opts.slowMs ?? 500;
  const started = Date.now();
  let seed = (opts.seed ?? 1) >>> 0 || 1;
  const random = () => {
    // xorshift32: deterministic per seed
    seed ^= seed << 13;
    seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    return seed / 0x100000000;
  };
  const counts = { requests: 0, faults: 0, '500': 0, '503': 0, drop: 0, lost: 0, cut: 0, slow: 0 };
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const pick = (method: string, url: string): FaultKind | null => {
    if (opts.filter && !opts.filter(method, url)) return null;
    if (opts.maxFaults !== undefined && counts.faults >= opts.maxFaults) return null;
    if (opts.untilMs !== undefined && Date.now() - started > opts.untilMs) return null;
    if (random() >= rate) return null;
    return kinds[Math.floor(random() * kinds.length)]!;
  };

  const forward = (req: IncomingMessage, body: Buffer, onResponse: (res: IncomingMessage) => void, onError: () => void) => {
    const out = httpRequest(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers },
      onResponse,
    );
    out.on('error', onError);
    out.end(body);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => undefined);
    req.on('end', () => {
      counts.requests++;
      const body = Buffer.concat(chunks);
      const fault = pick(req.method ?? 'GET', req.url ?? '/');
      if (fault) {
        counts.faults++;
        counts[fault]++;
      }
      const fail = () => res.socket?.destroy();
      switch (fault) {
        case '500':
          return s3ErrorResponse(res, 500, 'InternalError', 'We encountered an internal error. Please try again.');
        case '503':
          return s3ErrorResponse(res, 503, 'SlowDown', 'Please reduce your request rate.');
        case 'drop':
          return req.socket.destroy();
        case 'lost':
          return forward(req, body, (r) => {
            r.resume();
            r.on('end', () => req.socket.destroy());
          }, fail);
        case 'cut':
          return forward(req, body, (r) => {
            const parts: Buffer[] = [];
            r.on('data', (c: Buffer) => parts.push(c));
            r.on('end', () => {
              const all = Buffer.concat(parts);
              if (all.length < 2) return req.socket.destroy();
              res.writeHead(r.statusCode ?? 502, r.headers);
              res.write(all.subarray(0, all.length >> 1), () => req.socket.destroy());
            });
          }, fail);
        case 'slow': {
          const t = setTimeout(() => {
            timers.delete(t);
            if (!req.socket.destroyed) pipeThrough();
          }, slowMs);
          timers.add(t);
          return;
        }
        case null:
          return pipeThrough();
        default:
          return unreachable(fault);
      }
      function pipeThrough(): void {
        forward(req, body, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        }, fail);
      }
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts,
    setRate: (r) => {
      rate = r;
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}

function s3ErrorResponse(res: ServerResponse, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fault-proxy</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
