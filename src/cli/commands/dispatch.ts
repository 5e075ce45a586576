/**
 * `loom dispatch "TEXT" [--registry DIR] [--input JSON|@file] [--explain] [--dry-run] [--json]`:
 * The Agent Definition Specification's dispatch. Ranks the registry's active agents by their `routing` (intents, trigger
 * phrases, priority; rule in src/routing/dispatch.ts), runs the winner with the text as its input,
 * and when the winner is unavailable (does not compile, refuses the input) or its run fails, tries
 * its `fallback_agents` in order, saying so. The ranking is AgentloomClient.route, the runs
 * AgentloomClient.dispatch (its progress and attempt events are the lines printed).
 */
import { defineCommand, flagString } from '../args';
import { openClient } from '../client-session';

export const run = defineCommand(
  'dispatch',
  {
    usage: 'loom dispatch "TEXT" [--registry DIR] [--input JSON|@file] [--explain] [--dry-run] [--json] [--verbose]',
    options: { registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' }, input: { type: 'string', value: 'JSON|@FILE', help: 'the input of the chosen agent (default: derived from TEXT).' }, explain: { type: 'boolean', help: 'print the ranking of the agents on stderr.' }, 'dry-run': { type: 'boolean', help: 'print the ranking and start nothing.' }, json: { type: 'boolean', help: 'print JSON instead of text.' }, verbose: { type: 'boolean', help: 'show the worker\'s INFO log (default: errors only).' } },
    positionals: { min: 1, max: 1, names: ['TEXT'] },
  },
  async (args) => {
    const text = args.positionals[0];
    const json = args.flags.json === true;
    const say = (line: string) => { if (!json) process.stderr.write(line + '\n'); };
    const { NoRouteError, DispatchFailedError } = await import('../../client/agentloom-client');
    const { withEmbeddedWorker } = await import('../embedded');
    // A lazy client: ranking and a dry run never connect; the first agent that can run does.
    const loom = await openClient(args, { local: withEmbeddedWorker, verbose: args.flags.verbose === true });
    try {
      const route = await loom.route(text);
      if (args.flags.explain === true || args.flags['dry-run'] === true) process.stderr.write(`${route.explanation}\n`);
      const winner = route.winner;
      if (!winner) {
        process.stderr.write(`loom dispatch: no active agent in ${route.registry} matches ${JSON.stringify(text)} by its routing.intents or routing.trigger_phrases${route.activeAgents ? '' : ' (the registry has no active agent)'}\n`);
        return 1;
      }
      say(`dispatch: ${winner.agent_id} (${winner.matches.map((m) => `${m.kind} "${m.value}"`).join(', ')}; priority ${winner.priority})`);
      if (args.flags['dry-run'] === true) {
        process.stdout.write(`${winner.agent_id}\n`);
        return 0;
      }
      const input = flagString(args, 'input');
      const r = await loom.dispatch(text, {
        ...(input !== undefined ? { inputText: input } : {}),
        onProgress: json ? undefined : (e) => say(e.line),
        onAttempt: (a) => { process.stderr.write(`loom dispatch: ${a.line}\n`); },
      });
      if (r.agent !== r.winner) say(`dispatch: answered by fallback agent ${r.agent}`);
      process.stdout.write(JSON.stringify(r.output, null, json ? 0 : 2) + '\n');
      return 0;
    } catch (err) {
      // Every attempt has been said as it was given up on.
      if (err instanceof DispatchFailedError) return 1;
      if (err instanceof NoRouteError) { process.stderr.write(`loom dispatch: ${err.message}\n`); return 1; }
      throw err;
    } finally {
      await loom.close();
    }
  },
);
