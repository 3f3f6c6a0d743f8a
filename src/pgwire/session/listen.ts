/**
 * The `--listen` address of `paxd serve`: `host:port`, `[v6]:port`, `host` or `:port`.
 *
 *   parseListen('127.0.0.1:7432')   // { host: '127.0.0.1', port: 7432 }
 *   parseListen('[::1]:5433')       // { host: '::1', port: 5433 }
 *   parseListen(':0')               // { host: '127.0.0.1', port: 0 } (any free port)
 *   formatListen('::1', 5433)       // '[::1]:5433'
 */
import { isIPv6 } from 'node:net';
import { usage } from '../../types/index.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 7432;
export const DEFAULT_LISTEN = `${DEFAULT_HOST}:${DEFAULT_PORT}`;

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export function parseListen(s: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*))(?::(\d*))?$/.exec(s.trim());
  const host = m?.[1] ?? m?.[2];
  const portText = m?.[3];
  if (m === null || (portText !== undefined && portText === '')) throw badListen(s);
  const port = portText === undefined ? DEFAULT_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw badListen(s);
  return { host: host === undefined || host === '' ? DEFAULT_HOST : host, port };
}

export function formatListen(host: string, port: number): string {
  return isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}

function badListen(s: string) {
  return usage(`invalid --listen "${s}": expected host:port, [ipv6]:port, host or :port (port 0 to 65535), e.g. 127.0.0.1:7432`);
}
