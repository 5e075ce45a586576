/** Jest: SWC transpiles TypeScript (type checking is `npm run lint`). One real Temporal dev
 * server is started for the whole run by test/setup/global-setup.ts and shared by every file;
 * each test file runs its own worker on its own task queue. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testTimeout: 120000,
  maxWorkers: 2,
};
