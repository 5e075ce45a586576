/**
 * fuseraft's strategies in an agent file: `orchestration.pattern: {type: strategies, …}` holding
 * fuseraft's orchestration block verbatim (`Agents?`, `Selection`, `Termination?`, `Contracts?`,
 * `FailureHandling?`), and
 * a fuseraft keyword graph under `type: graph` told apart from the Agent Definition Specification's
 * graph by its shape. Resolves
 * the strategy's agent names to registry agents and turns every `validateStrategyConfig` problem
 * into a file:line diagnostic with its own code.
 */
import type { CompiledModel, JsonValue, StrategiesPattern } from '../compiled/types';
import { compileModel } from './compiled-entries';
import type { PathPart, SourceFile } from './source';
import type { Registry } from './registry';
import { validateStrategyConfig, closestName, type StrategyRule } from '../strategies/validate';
import { withCommandSources } from '../strategies/evidence';
import type { ContractConfig } from '../strategies/types';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** What the compiler's context (sections/context.ts) offers, kept structural: this file needs no more. */
export interface StrategyCtx {
  src: SourceFile;
  reg: Registry;
  needs: Set<string>;
  err(path: PathPart[], code: string, message: string, key?: boolean): void;
  warn(path: PathPart[], code: string, message: string, key?: boolean): void;
  disabledAgent(path: PathPart[], id: string, how: string): void;
}


/** The keys of fuseraft's GraphConfig; PascalCase keys under `type: graph` mean fuseraft's graph, not the Agent Definition Specification's. */
const GRAPH_KEYS = ['EntryNode', 'Nodes', 'Edges', 'MaxRetries', 'SubGraphs'];
const BLOCK_KEYS = ['Agents', 'Selection', 'Termination', 'Contracts', 'FailureHandling', 'Verifier'];

/** fuseraft's shape under `type: graph`: the orchestration block (`Selection`, …) or a bare GraphConfig (`EntryNode`, `Nodes`, `Edges`). */
export function isFuseraftGraph(p: Obj): boolean {
  return [...BLOCK_KEYS, ...GRAPH_KEYS].some((k) => p[k] !== undefined);
}

const CODE_OF: Record<StrategyRule, string> = {
  'unknown-agent': 'AGF070',
  'unknown-reference': 'AGF071',
  field: 'AGF072',
  'unknown-name': 'AGF073',
  structure: 'AGF074',
  ignored: 'AGL021',
  'unowned-keyword': 'AGL022',
  unreachable: 'AGL023',
};

/**
 * Compile a strategies pattern. `aliases` are the agent's local_agents (alias → agent_ref).
 * Agent names: `Agents` (a list of names, in the order sequential/roundrobin use) if given, else
 * every local_agents alias in declaration order. Each name is a local_agents alias, else a
 * registered agent_id.
 */
export function compileStrategies(ctx: StrategyCtx, p: Obj, aliases: Map<string, string>, base: PathPart[]): StrategiesPattern {
  let block: Obj;
  const { type: _type, ...rest } = p;
  void _type;
  /** Where a problem of the block is in the file. */
  let where = (path: PathPart[]): PathPart[] => [...base, ...path];
  if (p.type === 'graph' && p.Selection === undefined) {
    // A bare fuseraft GraphConfig under `type: graph`: it is `Selection: {Type: graph, Graph: …}`.
    const graph: Obj = {};
    const outer: Obj = {};
    for (const [k, v] of Object.entries(rest)) (GRAPH_KEYS.includes(k) ? graph : outer)[k] = v;
    block = { ...outer, Selection: { Type: 'graph', Graph: graph } };
    where = (path) => {
      if (path[0] !== 'Selection') return [...base, ...path];
      if (path[1] === 'Graph') return [...base, ...path.slice(2)];
      return path[1] === 'Type' ? [...base, 'type'] : base;
    };
  } else {
    block = rest;
    if (p.type === 'graph' && isObj(p.Selection) && p.Selection.Type !== 'graph') {
      ctx.err([...base, 'Selection', 'Type'], 'AGF074', `a fuseraft block under \`type: graph\` must select \`Type: graph\` (it says ${JSON.stringify(p.Selection.Type)}); write \`type: strategies\` for the other selection types`);
    }
  }

  // Agent names and what they run.
  const agents: { name: string; agent_id: string }[] = [];
  const names: string[] = [];
  const resolve = (name: string, path: PathPart[]): void => {
    const id = aliases.get(name) ?? (ctx.reg.entries.agent.has(name) ? name : undefined);
    if (id === undefined) {
      const near = closestName(name, [...aliases.keys(), ...ctx.reg.entries.agent.keys()]);
      ctx.err(path, 'AGF070', `agent \`${name}\` is neither a local_agents alias nor a registered agent_id${near ? `; did you mean \`${near}\`?` : ''} (declare \`local_agents: [{alias: ${name}, agent_ref: <agent_id>}]\`)`);
      return;
    }
    if (!aliases.has(name)) { ctx.needs.add(id); ctx.disabledAgent(path, id, `strategy agent \`${name}\``); }
    if (!ctx.reg.entries.agent.has(id)) return; // the alias itself is reported (AGF045)
    agents.push({ name, agent_id: id });
  };
  if (block.Agents !== undefined) {
    const list = block.Agents;
    if (!Array.isArray(list) || list.length === 0) {
      ctx.err([...base, 'Agents'], 'AGF072', '`Agents` must be a non-empty list of agent names (local_agents aliases or agent ids), in the order sequential and roundrobin use');
    } else {
      list.forEach((entry, i) => {
        // fuseraft's AgentConfig `{Name, Context}` names the agent too (its Context spec is checked by the validator).
        const n = isObj(entry) ? entry.Name : entry;
        if (isObj(entry) && (typeof n !== 'string' || n.trim() === '')) return; // the validator reports the missing Name
        if (typeof n !== 'string' || n.trim() === '') { ctx.err([...base, 'Agents', i], 'AGF072', '`Agents` entries are agent names (a local_agents alias or an agent id) or `{Name: …, Context: […]}`'); return; }
        if (names.includes(n)) { ctx.err([...base, 'Agents', i], 'AGF072', `agent \`${n}\` is listed twice in \`Agents\``); return; }
        names.push(n);
        resolve(n, [...base, 'Agents', i]);
      });
    }
  } else {
    for (const a of aliases.keys()) { names.push(a); resolve(a, base); }
    if (names.length === 0) ctx.err(base, 'AGF070', 'the strategy has no agents: declare `local_agents: [{alias: Planner, agent_ref: <agent_id>}, …]` (their aliases are the agent names), or list agent ids in `Agents`');
  }

  const models = [...ctx.reg.entries.model.keys()];
  const { Agents: agentList, ...config } = block;
  // The Agents list travels only when an entry carries a Context spec (the runtime reads it from there).
  if (Array.isArray(agentList) && agentList.some((a) => isObj(a) && a.Context !== undefined)) config.Agents = agentList;
  for (const pr of validateStrategyConfig(block, names, { models })) {
    if (names.length === 0 && pr.path.length === 1 && pr.path[0] === 'Selection' && /declares no agents/.test(pr.message)) continue; // reported above
    const path = where(pr.path);
    const code = CODE_OF[pr.rule];
    const key = pr.rule === 'field' && /unknown field/.test(pr.message);
    if (pr.severity === 'error') ctx.err(path, code, pr.message, key);
    else ctx.warn(path, code, pr.message, key);
  }
  const sel = isObj(block.Selection) ? block.Selection : {};
  // Every fuseraft selection type runs (src/workflows/strategies/workflow.ts), and so do a keyword graph's Graph,
  // MapReduce and ScatterGather sub-graphs: no AGL017 "compiles but does not run" warning for any of them.
  // llm selection / magentic manager models travel compiled with the pattern: the bundle holds agents only.
  const selectionModels: Record<string, CompiledModel> = {};
  const magentic = isObj(sel.Magentic) ? sel.Magentic : {};
  for (const ref of [sel.Type === 'llm' ? sel.Model : undefined, sel.Type === 'magentic' ? magentic.Model : undefined]) {
    const id = typeof ref === 'string' ? ref : isObj(ref) && typeof ref.ModelId === 'string' ? ref.ModelId : undefined;
    const entry = id === undefined ? undefined : ctx.reg.entries.model.get(id);
    if (id !== undefined && entry) selectionModels[id] = compileModel(entry);
  }
  const stored = JSON.parse(JSON.stringify(config)) as { [k: string]: JsonValue };
  // A CommandSucceeded without Source reads the brief its contract's FilesWritten names: made explicit here.
  if (Array.isArray(stored.Contracts) && stored.Contracts.every((c) => isObj(c) && Array.isArray(c.Requires) && c.Requires.every(isObj))) {
    stored.Contracts = withCommandSources(stored.Contracts as unknown as ContractConfig[]) as unknown as JsonValue[];
  }
  return { type: 'strategies', agents, config: stored, ...(Object.keys(selectionModels).length ? { models: selectionModels } : {}) } as StrategiesPattern;
}
