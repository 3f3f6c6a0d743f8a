/**
 * Opening an input file (or standard input) as a stream of byte chunks, decompressing `.gz`
 * on the way. Opening fails with PostgreSQL's COPY wording when the file cannot be read.
 */
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { PaxdError } from '../types/errors.js';

export interface Input {
  /** The name used in messages: the path, or "stdin". */
  readonly name: string;
  /** Size in bytes when known (a regular file), for progress. */
  readonly size: number | null;
  readonly stream: AsyncIterable<Uint8Array>;
  /** Bytes consumed from the underlying file so far (compressed bytes for .gz). */
  bytesRead(): number;
}

export async function openInput(path: string): Promise<Input> {
  let counted = 0;
  let raw: Readable;
  let size: number | null = null;
  const name = path === '-' ? 'stdin' : path;
  if (path === '-') raw = process.stdin;
  else {
    try {
      const fh = await open(path, 'r');
      const st = await fh.stat();
      if (st.isDirectory()) {
        await fh.close();
        throw Object.assign(new Error('Is a directory'), { code: 'EISDIR' });
      }
      size = st.size;
      raw = fh.createReadStream({ highWaterMark: 1 << 20 });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'No such file or directory' : code === 'EACCES' ? 'Permission denied' : code === 'EISDIR' ? 'Is a directory' : (e as Error).message;
      throw new PaxdError('io', code === 'ENOENT' ? '58P01' : '58030', `could not open file "${path}" for reading: ${why}`, { file: path, cause: e });
    }
  }
  // Count bytes as they are consumed (a 'data' listener would start the stream flowing).
  async function* counting(src: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of src) {
      counted += chunk.byteLength;
      yield chunk;
    }
  }
  let stream: AsyncIterable<Uint8Array> = counting(raw);
  if (/\.gz$/i.test(path)) stream = Readable.from(stream).pipe(createGunzip());
  return { name, size, stream, bytesRead: () => counted };
}
