// An ESM loader hook that appends every module URL the process loads to the file named by
// PAXD_IMPORT_TRACE, one per line: `node --import ./test/cli/import-trace.mjs …`. The CLI tests
// use it to check which layers a command loads, without timing anything.
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';

const file = process.env.PAXD_IMPORT_TRACE;
if (file) register('./import-trace-hooks.mjs', import.meta.url, { data: { file } });
// CommonJS modules loaded by require() do not pass through the ESM hooks in Node 20.
if (file) {
  const Module = (await import('node:module')).default;
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    const r = load.apply(this, arguments);
    if (Module.isBuiltin(request)) return r;
    try {
      appendFileSync(file, `cjs:${Module._resolveFilename(request, parent, isMain)}\n`);
    } catch {
      // a built-in or an unresolvable name: nothing to record
    }
    return r;
  };
}
