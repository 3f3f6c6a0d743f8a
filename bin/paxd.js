#!/usr/bin/env node
// The paxd command. Runs the compiled CLI (built by `npm install` through the prepare script).
import { main } from '../dist/cli/main.js';
process.exitCode = await main(process.argv.slice(2));
