/**
 * The layer check (`npm run layers`; DESIGN.md "Layers and folders" and its Turn-2 decisions,
 * docs/ARCHITECTURE.md "Layers"). It fails on
 *   - an import cycle (type-only imports included),
 *   - an upward or sideways import: a layer imports only the ranks below its own,
 *   - a deep import: a file in src/A/ importing src/B/x.ts rather than src/B/index.ts (A ≠ B;
 *     sub-folders of a layer are part of it; HEAVY_ENTRIES and dynamic import() excepted),
 *   - scan and insert used together anywhere but src/table,
 *   - pgwire importing mirror or export,
 *   - the pgwire codec importing pgwire/session.
 * src/index.ts is the library API: it may import every layer but cli and daemon, and no file
 * under src/ imports it.
 */
'use strict';

/** Low to high. A layer may import the layers of lower ranks; layers of one rank are siblings. */
const RANKS = [
  ['runtime'],
  ['types'],
  ['storage'],
  ['stats'],
  ['pax'],
  ['aocolumn'],
  ['scan', 'insert'],
  ['table'],
  ['engine', 'export', 'mirror'],
  ['pgwire'],
  ['daemon'],
  ['cli'],
];

/** Above src/table, a layer uses scan or insert, never both (src/table is where they meet). */
const NOT_BELOW = {
  engine: ['insert'],
  export: ['insert'],
  mirror: ['insert'],
  pgwire: ['insert'],
  daemon: ['scan'],
  cli: ['scan'],
};

/** Front doors that share a concept share it through a lower layer (the type mapping: src/types). */
const APART = { pgwire: ['mirror', 'export'] };

/**
 * Second entry points of a layer, imported from their file because they load a heavy package
 * that most users of the layer's index.ts never need (apache-arrow).
 */
const HEAVY_ENTRIES = ['^src/types/arrow\\.ts$', '^src/insert/readers\\.ts$', '^src/table/ingest\\.ts$'];

/**
 * What `paxd --help` loads besides the command table (test/cli/startup.test.ts): the CLI's
 * static imports take these files of src/types rather than its whole index.ts.
 */
const CLI_STARTUP = ['^src/types/errors\\.ts$', '^src/types/units\\.ts$', '^src/types/timezone\\.ts$'];

const alt = (names) => `^src/(${names.join('|')})/`;

const layerRules = RANKS.flatMap((rank, i) =>
  rank
    .map((layer) => ({ layer, banned: RANKS.slice(i).flat().filter((l) => l !== layer) }))
    .filter(({ banned }) => banned.length > 0)
    .map(({ layer, banned }) => ({
      name: 'layer-order',
      comment: `src/${layer} imports only ${RANKS.slice(0, i).flat().join(', ') || 'no other layer'} (docs/ARCHITECTURE.md "Layers")`,
      severity: 'error',
      from: { path: `^src/${layer}/` },
      to: { path: alt(banned) },
    })),
);

const meetRules = Object.entries(NOT_BELOW).map(([layer, banned]) => ({
  name: 'scan-and-insert-meet-in-table',
  comment: `src/${layer} reaches ${banned.join(', ')} through src/table`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: alt(banned) },
}));

const apartRules = Object.entries(APART).map(([layer, banned]) => ({
  name: 'front-doors-apart',
  comment: `src/${layer} does not import ${banned.join(' or ')}`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: alt(banned) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'An import cycle, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    ...meetRules,
    ...apartRules,
    {
      name: 'codec-below-session',
      comment: 'The wire codec (bytes and messages) knows nothing of sessions (I/O, timers, state): STYLE.md "Seams".',
      severity: 'error',
      from: { path: '^src/pgwire/codec/' },
      to: { path: '^src/pgwire/session/' },
    },
    {
      name: 'deep-import',
      comment: 'Import another layer through its index.ts (or a heavy entry point). A dynamic import() may pick a file: that is how the CLI loads layers lazily.',
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: '^src/cli/' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$', ...HEAVY_ENTRIES], dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'deep-import',
      comment: 'The CLI imports layers through their index.ts, a heavy entry point, a dynamic import() or, on its startup path, CLI_STARTUP.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/cli/', '^src/[^/]+/index\\.ts$', ...HEAVY_ENTRIES, ...CLI_STARTUP], dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'deep-import',
      comment: 'The library API imports each layer through its index.ts.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/[^/]+/index\\.ts$', ...HEAVY_ENTRIES] },
    },
    {
      name: 'library-api',
      comment: 'src/index.ts is the library API for users: nothing under src/ imports it.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'library-api',
      comment: 'src/index.ts does not import the CLI or the daemon.',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/(cli|daemon)/' },
    },
    {
      name: 'loose-file',
      comment: 'Every module under src/ lives in a layer folder, except the library API src/index.ts.',
      severity: 'error',
      from: { path: '^src/[^/]+\\.ts$', pathNot: '^src/index\\.ts$' },
      to: {},
    },
  ],
  options: {
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
