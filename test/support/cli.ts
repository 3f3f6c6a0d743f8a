// Runs the CLI from source (tests use this instead of the built bin/paxd.js).
import { main } from '../../src/cli/main.js';
process.exitCode = await main(process.argv.slice(2));
