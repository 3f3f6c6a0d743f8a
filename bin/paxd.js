#!/usr/bin/env node
// The paxd command. Runs the bundled CLI (dist/cli-bundle, built by `npm run build`: tsc, then
// bin/bundle-cli.mjs; `npm install` runs it through the prepare script), or tsc's per-file
// output when only tsc has run (the same code, slower to start).
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/cli-bundle/main.js', import.meta.url);
const { main } = await import(existsSync(bundle) ? bundle.href : '../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
