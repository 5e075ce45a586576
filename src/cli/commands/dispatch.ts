/**
 * `loom dispatch "TEXT" [--registry DIR] [--input JSON|@file] [--explain] [--dry-run] [--json]`:
 * The Agent Definition Specification's dispatch. Ranks the registry's active agents by their `routing` (intents, trigger
 * phrases, priority; rule in src/routing/dispatch.ts), runs the winner with the text as its input,
 * and when the winner is unavailable (does not compile, refuses the input) or its run fails, tries
 * its `fallback_agents` in order, saying so.
 */
import { defineCommand, flagString, registryDir } from '../args';

export const run = defineCommand(
  'dispatch',
  {
    usage: 'loom dispatch "TEXT" [--registry DIR] [--input JSON|@file] [--explain] [--dry-run] [--json] [--verbose]',
    options: { registry: { type: 'string', value: 'DIR', help: 'the registry folder (else LOOM_REGISTRY, else the current folder).' }, input: { type: 'string', value: 'JSON|@FILE', help: 'the input of the chosen agent (default: derived from TEXT).' }, explain: { type: 'boolean', help: 'print the ranking of the agents on stderr.' }, 'dry-run': { type: 'boolean', help: 'print the ranking and start nothing.' }, json: { type: 'boolean', help: 'print JSON instead of text.' }, verbose: { type: 'boolean', help: 'show the worker\'s INFO log (default: errors only).' } },
    positionals: { min: 1, max: 1, names: ['TEXT'] },
  },
  async (args) => {
    const text = args.positionals[0];
    const dir = registryDir(args);
    const json = args.flags.json === true;
    const say = (line: string) => { if (!json) process.stderr.write(line + '\n'); };
    const { loadRegistry } = await import('../../compiler');
    const { rankAgents, attemptOrder, explainRanking, inputFromText } = await import('../../routing/dispatch');
    const reg = loadRegistry(dir);
    const agents = [...reg.entries.agent.values()].filter((e) => e.data?.status === 'active');
    const ranked = rankAgents(text, agents.map((e) => ({ agent_id: e.id, routing: (e.data?.routing ?? undefined) as never })));
    if (args.flags.explain === true || args.flags['dry-run'] === true) process.stderr.write(`${explainRanking(ranked)}\n`);
    const winner = ranked[0];
    if (!winner || winner.tier === 0) {
      process.stderr.write(`loom dispatch: no active agent in ${dir} matches ${JSON.stringify(text)} by its routing.intents or routing.trigger_phrases${agents.length ? '' : ' (the registry has no active agent)'}\n`);
      return 1;
    }
    say(`dispatch: ${winner.agent_id} (${winner.matches.map((m) => `${m.kind} "${m.value}"`).join(', ')}; priority ${winner.priority})`);
    if (args.flags['dry-run'] === true) {
      process.stdout.write(`${winner.agent_id}\n`);
      return 0;
    }
    const { prepareRun, RunError } = await import('../../operator/runs');
    const { connect } = await import('../../operator/connect');
    const { withEmbeddedWorker } = await import('../embedded');
    const { runToEnd } = await import('../../operator/run-flow');
    let session: Awaited<ReturnType<typeof connect>> | undefined;
    const order = attemptOrder(winner);
    try {
      for (let i = 0; i < order.length; i++) {
        const id = order[i];
        const next = order[i + 1];
        const onward = next ? `; trying fallback agent ${next}` : winner.fallback_agents.length ? '; no fallback agent left' : '; it has no routing.fallback_agents';
        let prepared;
        try {
          const schema = reg.entries.agent.get(id)?.data?.interface;
          const given = flagString(args, 'input');
          const derived = given === undefined ? inputFromText((schema as { input?: { schema?: unknown } } | undefined)?.input?.schema, text) : undefined;
          if (given === undefined && !derived) throw new RunError(`${id}'s interface.input.schema has no string property to put the text in: pass --input JSON`);
          prepared = await prepareRun(id, dir, given ?? JSON.stringify(derived));
        } catch (err) {
          if (!(err instanceof RunError)) throw err;
          process.stderr.write(`loom dispatch: ${id} is unavailable: ${err.message}${onward}\n`);
          continue;
        }
        session ??= await connect({ embedded: withEmbeddedWorker, verbose: args.flags.verbose === true });
        const end = await runToEnd(session.client, prepared, { json, uiUrl: session.uiUrl, namespace: session.namespace, embedded: session.embedded, say });
        if (end.ok) {
          if (id !== winner.agent_id) say(`dispatch: answered by fallback agent ${id}`);
          process.stdout.write(JSON.stringify(end.output, null, json ? 0 : 2) + '\n');
          return 0;
        }
        process.stderr.write(`loom dispatch: ${id} failed (${end.workflowId}): ${end.reason}${onward}\n`);
      }
      return 1;
    } finally {
      await session?.close();
    }
  },
);
