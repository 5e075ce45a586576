// ESLint (flat config). Workflow code must be deterministic: no Node built-ins and no
// non-workflow Temporal packages in src/workflows; floating promises are errors everywhere.
const tseslint = require('typescript-eslint');

const nodeBuiltins = require('module').builtinModules.flatMap((m) => [m, `node:${m}`]);

module.exports = tseslint.config(
  // examples/embed-in-your-worker is a user's project of its own (its tsconfig, @agentloom/core from the
  // packed tarball): test/library/pack-install.test.ts type-checks it with its own tsc.
  { ignores: ['node_modules/**', 'dist/**', '.tools/**', '.loom/**', 'coverage/**', 'bin/**', '**/*.js', 'examples/embed-in-your-worker/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: __dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    // Everything the workflow bundle pulls in: workflows and the pure modules they import.
    files: ['src/workflows/**/*.ts', 'src/runtime/**/*.ts', 'src/orchestration/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code must be deterministic: no Node built-ins (use an activity).' })),
          { name: '@temporalio/client', message: 'Workflows import only @temporalio/workflow.' },
          { name: '@temporalio/worker', message: 'Workflows import only @temporalio/workflow.' },
          { name: '@temporalio/activity', message: 'Workflows import only @temporalio/workflow.' },
          { name: '@temporalio/testing', message: 'Workflows import only @temporalio/workflow.' },
          { name: 'openai', message: 'Model calls are activities.' },
        ],
        patterns: [
          { group: ['**/activities/*', '!**/activities/types'], message: 'Workflows may only `import type` from activities.', allowTypeImports: true },
          { group: ['**/compiler/*', '!**/compiler/types'], message: 'Workflows may not load the compiler (I/O).', allowTypeImports: true },
        ],
      }],
      'no-restricted-globals': ['error', { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' }, { name: 'setInterval', message: 'Use sleep()/timers from @temporalio/workflow.' }],
    },
  },
);
