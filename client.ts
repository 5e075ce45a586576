/**
 * `loom` — the Agentloom CLI. Each command lives in its own module under src/cli/commands and
 * is loaded lazily, so `loom validate` never loads gRPC and a broken command cannot break others.
 */
import { runCli } from './src/cli/main';

runCli(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    process.stderr.write(`loom: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
