/**
 * `loom` — the Agentloom CLI. Each command lives in its own module under src/cli/commands and
 * is loaded lazily, so `loom validate` never loads gRPC and a broken command cannot break others.
 * Exit codes: 0 success, 1 the command failed (including an unexpected error, printed on one line),
 * 2 a usage error. The process ends when its work is done: nothing is left running to force an exit.
 */
import { runCli } from './src/cli/main';
import { describeError } from './src/operator/errors';

runCli(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    // The message and its causes (a Temporal client error's root cause is in its `cause`).
    process.stderr.write(`loom: ${describeError(err)}\n`);
    process.exitCode = 1;
  },
);
