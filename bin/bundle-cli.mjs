#!/usr/bin/env node
// `npm run build`, after tsc: bundles the paxd command into dist/cli-bundle/, one ES module per
// command plus the chunks they share (esbuild, which comes with tsx; test/support/bundle.ts
// bundles test children the same way). Node 20 loads an ES module graph file by file (resolve,
// read, compile, link each), so `paxd sql` loading ~150 files of dist/ spent about 100 ms of
// CPU on module loading alone; a bundle loads a few files. Packages stay external (native
// modules and wasm resolve from node_modules as before). The encoder, parser and engine worker
// threads and the SQL parser's are entries of their own in the same folder, so that their
// `new URL('./encode-worker.js' | './parse-worker.js' | './worker.js' | './sql-parse-worker.js',
// import.meta.url)` (src/runtime's startWorker) finds them from any chunk.
// The library (dist/index.js, the package's exports) stays tsc's file-per-module output.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/cli-bundle`;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    main: `${root}src/cli/main.ts`,
    'encode-worker': `${root}src/pax/encode-worker.ts`,
    'parse-worker': `${root}src/insert/parse-worker.ts`,
    worker: `${root}src/engine/compile/worker.ts`,
    'sql-parse-worker': `${root}src/engine/sql-parse-worker.ts`,
  },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  outdir,
  chunkNames: '[name]-[hash]',
  sourcemap: true,
  logLevel: 'warning',
});
