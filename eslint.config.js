// ESLint (flat config). Layers point down (scripts/layers.js); workflow code must be deterministic:
// no Node built-ins and no non-workflow Temporal packages; floating promises are errors everywhere.
const tseslint = require('typescript-eslint');

const nodeBuiltins = require('module').builtinModules.flatMap((m) => [m, `node:${m}`]);
const { LAYER_OF } = require('./scripts/layers');

/** Folders whose modules the workflow bundle pulls in: deterministic code only. */
const WORKFLOW_BUNDLE = ['workflows', 'runtime', 'orchestration', 'strategies', 'routing', 'shared'];
const deterministicPaths = [
  ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code must be deterministic: no Node built-ins (use an activity).' })),
  { name: '@temporalio/client', message: 'Workflows import only @temporalio/workflow.' },
  { name: '@temporalio/worker', message: 'Workflows import only @temporalio/workflow.' },
  { name: '@temporalio/activity', message: 'Workflows import only @temporalio/workflow.' },
  { name: '@temporalio/testing', message: 'Workflows import only @temporalio/workflow.' },
  { name: 'openai', message: 'Model calls are activities.' },
];
const deterministicPatterns = [
  { group: ['**/activities/*'], message: 'Workflows may only `import type` from activities.', allowTypeImports: true },
  { group: ['**/compiler/*'], message: 'Workflows may not load the compiler (I/O).', allowTypeImports: true },
];

module.exports = tseslint.config(
  // examples/embed-in-your-worker is a user's project of its own (its tsconfig, @agentloom/core from the
  // packed tarball): test/library/pack-install.test.ts type-checks it with its own tsc. The example vendor
  // policy (examples/orchestrators/vendor/*.ts) imports the package by its name, as a user's workflows
  // module does; the worker's bundler resolves it (test/orchestration/policies.int.test.ts runs it).
  { ignores: ['node_modules/**', 'dist/**', '.tools/**', '.loom/**', 'coverage/**', 'bin/**', '**/*.js', 'examples/embed-in-your-worker/**', 'examples/orchestrators/vendor/*.ts'] },
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
  // The layer order (scripts/layers.js): a folder of src/ imports only its own layer and the ones
  // below it. The workflow bundle's folders also keep workflow code deterministic.
  ...Object.keys(LAYER_OF).map((folder) => {
    const above = Object.keys(LAYER_OF).filter((f) => LAYER_OF[f] > LAYER_OF[folder]);
    const layerPatterns = above.length
      ? [{ regex: `^(\\.\\.?/)+(.*/)?(${above.join('|')})(/|$)`, message: `src/${folder} may import only its own layer and the layers below it (scripts/layers.js).` }]
      : [];
    const bundled = WORKFLOW_BUNDLE.includes(folder);
    return {
      files: [`src/${folder}/**/*.ts`],
      rules: {
        'no-restricted-imports': ['error', {
          paths: bundled ? deterministicPaths : [],
          patterns: [...layerPatterns, ...(bundled ? deterministicPatterns : [])],
        }],
        ...(bundled ? { 'no-restricted-globals': ['error', { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' }, { name: 'setInterval', message: 'Use sleep()/timers from @temporalio/workflow.' }] } : {}),
      },
    };
  }),
);
