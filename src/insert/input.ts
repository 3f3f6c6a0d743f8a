/**
 * Opening an input file (or standard input) as a stream of byte chunks, decompressing `.gz`
 * (node's zlib) and `.zst` (zstd-napi's DecompressStream) on the way, with stream
 * backpressure, so memory stays bounded whatever the size. Opening fails with PostgreSQL's
 * COPY wording when the file cannot be read; a corrupt compressed stream fails with 22P04
 * naming the file.
 *
 *   const input = await openInput('events.ndjson.zst');
 *   for await (const chunk of input.stream) …;   // decompressed bytes
 *
 * Formats that need random access (Parquet) read `path` themselves and call `close()`
 * instead of consuming `stream`.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { Readable, pipeline, type Transform } from 'node:stream';
import { DecompressStream } from 'zstd-napi';
import { PaxdError, SQLSTATE } from '../types/errors.js';

export interface Input {
  /** The name used in messages: the path, or "stdin". */
  readonly name: string;
  /** Size in bytes when known (a regular file), for progress. */
  readonly size: number | null;
  /**
   * The path of a regular, uncompressed file, which can be read at random offsets; null for
   * standard input and compressed files (their bytes exist only as `stream`).
   */
  readonly path: string | null;
  readonly stream: AsyncIterable<Uint8Array>;
  /** Bytes consumed from the underlying file so far (compressed bytes for .gz/.zst). */
  bytesRead(): number;
  /** Releases the file without reading `stream` (idempotent; a consumed stream closes itself). */
  close(): Promise<void>;
}

type Compression = 'gzip' | 'zstd' | null;

function compressionOf(path: string): Compression {
  if (/\.gz$/i.test(path)) return 'gzip';
  if (/\.zst$/i.test(path)) return 'zstd';
  return null;
}

export async function openInput(path: string): Promise<Input> {
  let counted = 0;
  let fh: FileHandle | null = null;
  let size: number | null = null;
  const name = path === '-' ? 'stdin' : path;
  if (path !== '-') {
    try {
      fh = await open(path, 'r');
      const st = await fh.stat();
      if (st.isDirectory()) {
        await fh.close();
        fh = null;
        throw Object.assign(new Error('Is a directory'), { code: 'EISDIR' });
      }
      size = st.size;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'No such file or directory' : code === 'EACCES' ? 'Permission denied' : code === 'EISDIR' ? 'Is a directory' : (e as Error).message;
      throw new PaxdError('io', code === 'ENOENT' ? '58P01' : '58030', `could not open file "${path}" for reading: ${why}`, { file: path, cause: e });
    }
  }
  let started = false;
  const close = async (): Promise<void> => {
    const h = fh;
    fh = null;
    if (h !== null && !started) await h.close();
  };
  // The read stream is made on first use, so an input read through `path` never opens one.
  // Bytes are counted as they are consumed (a 'data' listener would start the stream flowing).
  async function* counting(): AsyncGenerator<Uint8Array> {
    let raw: Readable;
    if (fh === null) {
      if (path !== '-') throw new PaxdError('internal', SQLSTATE.internal_error, `internal error: input ${name} read after close()`);
      raw = process.stdin;
    } else {
      started = true;
      raw = fh.createReadStream({ highWaterMark: 1 << 20 }); // autoClose: closes fh at end or destroy
    }
    try {
      for await (const chunk of raw) {
        counted += (chunk as Uint8Array).byteLength;
        yield chunk as Uint8Array;
      }
    } finally {
      if (raw !== process.stdin) raw.destroy();
    }
  }
  const compression = compressionOf(path);
  let stream: AsyncIterable<Uint8Array> = counting();
  if (compression !== null) stream = decompress(stream, compression, name);
  return { name, size, path: compression === null && path !== '-' ? path : null, stream, bytesRead: () => counted, close };
}

/** The decompressed bytes of `src`; a corrupt or truncated stream fails with 22P04. */
async function* decompress(src: AsyncIterable<Uint8Array>, compression: 'gzip' | 'zstd', name: string): AsyncGenerator<Uint8Array> {
  const transform: Transform = compression === 'gzip' ? createGunzip() : new DecompressStream();
  // pipeline destroys every stage on an error and surfaces it on the last one.
  const out = pipeline(Readable.from(src, { objectMode: false }), transform, () => {});
  try {
    for await (const chunk of out) yield chunk as Uint8Array;
  } catch (e) {
    if (e instanceof PaxdError) throw e;
    throw corruptCompressed(name, compression, e);
  } finally {
    out.destroy();
  }
}

function corruptCompressed(name: string, compression: 'gzip' | 'zstd', e: unknown): PaxdError {
  const why = e instanceof Error ? e.message : String(e);
  return new PaxdError('invalid_input', SQLSTATE.bad_copy_file_format, `${name}: invalid or truncated ${compression} data: ${why}`, { file: name, cause: e });
}
