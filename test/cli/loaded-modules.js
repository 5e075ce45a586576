// Preloaded (`node -r`) into a `loom` process by test/cli/start-loads*.test.ts: at exit, writes every
// file the process loaded (require.cache) as JSON to the file named by LOOM_TEST_LOADED_FILE.
const fs = require('fs');
process.on('exit', () => {
  if (process.env.LOOM_TEST_LOADED_FILE) fs.writeFileSync(process.env.LOOM_TEST_LOADED_FILE, JSON.stringify(Object.keys(require.cache)));
});
