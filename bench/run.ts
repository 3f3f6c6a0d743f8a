/**
 * `npm run bench -- NAME [options]`: runs one benchmark and prints its figures.
 *   storage   write and full-read throughput and compression ratios of lineitem (SF 1 by default)
 */
const benches: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  storage: () => import('./storage.js'),
};

const [name, ...args] = process.argv.slice(2);
if (name === undefined || !(name in benches)) {
  process.stderr.write(`usage: npm run bench -- ${Object.keys(benches).join('|')} [options]\n`);
  process.exit(2);
}
const mod = await benches[name]!();
await mod.run(args);
