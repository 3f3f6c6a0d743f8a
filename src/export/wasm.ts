/**
 * parquet-wasm, loaded on first use (its node build instantiates the WebAssembly module
 * synchronously at require time, so importing src/export costs nothing until an export runs),
 * and the writer properties per codec.
 *
 * Writing runs in the calling thread: unlike reading (src/insert/parquet-input.ts), the input
 * is paxd's own well-formed Arrow data, and a Rust panic inside the synchronous
 * `writeParquet` surfaces as a catchable RuntimeError, not as a crash of an async task.
 */
import { createRequire } from 'node:module';

export type ParquetWasm = typeof import('parquet-wasm');

const require = createRequire(import.meta.url);
let loaded: ParquetWasm | null = null;

export function parquetWasm(): ParquetWasm {
  loaded ??= require('parquet-wasm') as ParquetWasm;
  return loaded;
}

/** Codecs `paxd export --codec` accepts. */
export type ExportCodec = 'zstd' | 'snappy' | 'lz4' | 'none';

export const EXPORT_CODECS: readonly ExportCodec[] = ['zstd', 'snappy', 'lz4', 'none'];

/**
 * Writer properties for one row group per written file: statistics per column chunk (min,
 * max, null count — parquet-rs always writes the null count when statistics are on), no cap
 * on the row group (paxd cuts the groups itself), dictionary encoding where it pays (the
 * parquet-rs default). lz4 is LZ4_RAW, the codec the Parquet spec recommends over the
 * deprecated framed "LZ4".
 */
export function writerProperties(pw: ParquetWasm, codec: ExportCodec): import('parquet-wasm').WriterProperties {
  const compression = {
    zstd: pw.Compression.ZSTD,
    snappy: pw.Compression.SNAPPY,
    lz4: pw.Compression.LZ4_RAW,
    none: pw.Compression.UNCOMPRESSED,
  }[codec];
  return new pw.WriterPropertiesBuilder()
    .setCompression(compression)
    .setStatisticsEnabled(pw.EnabledStatistics.Chunk)
    .setMaxRowGroupSize(2 ** 31 - 1)
    .build();
}
