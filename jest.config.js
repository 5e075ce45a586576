/** Jest: SWC transpiles TypeScript (type checking is `npm run lint`). Two projects:
 * - unit: tests that need no Temporal server — every `*.unit.test.ts` (any folder) and
 *   test/compiler/** (the compiler is pure). `npm run test:unit` runs only these
 *   (`jest --selectProjects unit`), and starts no dev server.
 * - integration: every other `*.test.ts`. ONE real Temporal dev server is started for them by
 *   test/setup/global-setup.ts and shared by every file; each file runs its own worker on its own
 *   task queue. A project's global setup runs only when one of its tests is selected.
 * A test that needs the server must not be named *.unit.test.ts (nor live in test/compiler):
 * test/helpers/temporal.ts fails it with "LOOM_TEST_TEMPORAL_ADDRESS is not set". Nor one that
 * starts another server (PostgreSQL, S3): the unit project stays under a minute. */
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
};

module.exports = {
  testTimeout: 120000,
  maxWorkers: 2,
  // The longest files first, also on a fresh clone without jest's cached timings (the file says why).
  testSequencer: '<rootDir>/test/setup/slow-first-sequencer.js',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['**/*.unit.test.ts', '<rootDir>/test/compiler/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.unit\\.test\\.ts$', '<rootDir>/test/compiler/'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
