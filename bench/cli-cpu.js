// Preloaded by bench/cli.ts into each timed process (`node -r`): at exit, writes the process's own
// CPU time (user + system, ms) to file descriptor 3, a figure the machine's load barely changes.
const fs = require('fs');
process.on('exit', () => {
  const u = process.cpuUsage();
  try { fs.writeSync(3, String((u.user + u.system) / 1000)); } catch { /* not run by the bench */ }
});
