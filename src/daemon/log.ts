/**
 * The daemon's structured log (docs/DAEMON.md): pino, JSON lines on standard output; when standard
 * output is a terminal, the same records as one readable line each
 * (`12:08:01.123 INFO  inbox: loaded 3 files into events (1,200 rows) table=events rows=1200`),
 * without pino-pretty. `flushLog()` writes out what is buffered; the daemon calls it on exit.
 */
import { pino, destination, stdTimeFunctions, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

interface Destination {
  write(s: string): void;
  flushSync?(): void;
}

let active: Destination | null = null;

/** A logger writing to `out` (standard output by default), as JSON or, on a terminal, as text. */
export function createLogger(level: LogLevel, out: NodeJS.WriteStream | Destination = process.stdout): Logger {
  const tty = 'isTTY' in out && out.isTTY === true;
  let dest: Destination;
  if (tty) dest = humanStream(out);
  else if (out === process.stdout) dest = destination({ dest: 1, sync: false, minLength: 0 });
  else dest = out;
  active = dest;
  return pino({ level, base: { pid: process.pid }, timestamp: stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }, dest);
}

/** Writes out what the log has buffered (synchronously: safe in an exit handler). */
export function flushLog(): void {
  try {
    active?.flushSync?.();
  } catch {
    // EAGAIN on a full pipe, or the stream already closed: nothing more can be done at exit.
  }
}

const LEVEL_WIDTH = 5;
const SKIP = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** One line per record: time, level, message, then the other fields as key=value. */
function humanStream(out: Destination): Destination {
  return {
    write(s: string) {
      for (const line of s.split('\n')) {
        if (line === '') continue;
        let rec: Record<string, unknown>;
        try {
          rec = JSON.parse(line) as Record<string, unknown>;
        } catch {
          out.write(line + '\n');
          continue;
        }
        const time = typeof rec.time === 'string' ? rec.time.slice(11, 23) : '';
        const level = String(rec.level ?? '').toUpperCase().padEnd(LEVEL_WIDTH);
        let stack = '';
        const rest = Object.entries(rec)
          .filter(([k]) => !SKIP.has(k))
          .map(([k, v]) => {
            if (k === 'err' && typeof v === 'object' && v !== null && 'message' in v) {
              const e = v as { message: unknown; stack?: unknown };
              if (typeof e.stack === 'string') stack = '\n    ' + e.stack.split('\n').slice(1).map((l) => l.trim()).join('\n    ');
              return `err=${JSON.stringify(String(e.message))}`;
            }
            return `${k}=${typeof v === 'string' ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v)}`;
          })
          .join(' ');
        out.write(`${time} ${level} ${String(rec.msg ?? '')}${rest ? '  ' + rest : ''}${stack}\n`);
      }
    },
  };
}
