/**
 * The messages between a load on the main thread (./parse-thread.ts) and its parser thread
 * (./parse-worker.ts): a load is opened with its format and fields, the thread pulls input a
 * chunk at a time and sends rejects and batches (at most BATCH_CREDITS not yet taken), then
 * the end with its counts, or an error as it was thrown.
 */
import { type Batch, type Field, isPaxdError } from '../types/index.js';
import type { Format, FormatOptions, Reject } from './formats.js';

/** Batches a load may have sent and the main thread not yet taken. */
export const BATCH_CREDITS = 2;

export interface ParseOpen {
  t: 'open';
  id: number;
  format: Format;
  /** The input's name in messages (`request body`). */
  name: string;
  fields: readonly Field[];
  opts: Omit<FormatOptions, 'onReject' | 'timeZone'> & { timeZone?: string };
}

/** Main thread → parser thread. */
export type ParseRequest =
  | ParseOpen
  | { t: 'chunk'; id: number; bytes: Uint8Array | null }
  | { t: 'credit'; id: number }
  | { t: 'close'; id: number };

/** An error as it crosses the thread: a PaxdError's kind, code and location, or another error's name. */
export interface ThreadError {
  name: string;
  message: string;
  paxd?: { kind: string; code: string; loc: Record<string, unknown> };
}

/** Parser thread → main thread. */
export type ParseReply =
  | { t: 'pull'; id: number }
  | { t: 'reject'; id: number; reject: Reject }
  | { t: 'batch'; id: number; batch: Batch }
  | { t: 'end'; id: number; rowsRead: number; rowsRejected: number }
  | { t: 'error'; id: number; error: ThreadError };

const LOCATION = ['file', 'offset', 'line', 'column', 'columnName', 'row', 'position', 'detail', 'hint'] as const;

export function toThreadError(e: unknown): ThreadError {
  if (isPaxdError(e)) {
    const loc: Record<string, unknown> = {};
    for (const k of LOCATION) if (e[k] !== undefined) loc[k] = e[k];
    return { name: e.name, message: e.message, paxd: { kind: e.kind, code: e.code, loc } };
  }
  return { name: e instanceof Error ? e.name : 'Error', message: e instanceof Error ? e.message : String(e) };
}
