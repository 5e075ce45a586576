/**
 * Test payloads compiled from real agent definitions: a test writes the agent it runs the way a user
 * does (Markdown with YAML front matter, one file per agent, model, tool, role…) into a temp
 * registry, and the project's compiler turns it into the compiled bundle. The test then says which
 * agent it runs, and every payload it uses went through the same validation and defaults as a
 * user's. A definition the compiler refuses fails the test with the compiler's own diagnostics.
 *
 *   const { agent } = compileAgent({ agent_id: 'adder', model: scripted({ turns: [{ content: 'done' }] }), tools: [builtin('arithmetic')] });
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { stringify } from 'yaml';
import { compileBundle, formatDiagnostic } from '../../src/compiler';
import { KINDS, type Kind } from '../../src/compiler/registry';
import { TENANT_FILE } from '../../src/compiler/tenant';
import type { CompiledAgent, CompiledBundle, Diagnostic, ScriptedModelConfig } from '../../src/compiled/types';
import { BUILTIN_SCHEMAS } from './builtin-schemas';

export type FrontMatter = Record<string, unknown>;

/** The Markdown body every test agent gets unless it gives its own (the sections a valid agent needs). */
export const AGENT_BODY = '# Purpose\nAnswer the question.\n\n# System behavior\nAnswer briefly.\n\n# Rules\n- Be brief.\n';

/** One definition file: its kind, its front matter and (optionally) its Markdown body. */
export interface Definition {
  kind: Kind;
  front: FrontMatter;
  body?: string;
}

/** Definition file text: `---`, the front matter as YAML, `---`, the body. */
export function definitionText(front: FrontMatter, body = ''): string {
  return `---\n${stringify(front, { lineWidth: 0 })}---\n\n${body}`;
}

/** A temp registry folder that definitions are written into and compiled from. */
export class Definitions {
  readonly dir: string;

  constructor(dir?: string) {
    this.dir = dir ?? fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'loom-defs-'));
  }

  /** Write one definition (its id is the kind's id field in `front`). */
  add(d: Definition): this {
    const k = KINDS[d.kind];
    const id = d.front[k.idField];
    if (typeof id !== 'string' || !id) throw new Error(`a ${d.kind} definition needs a ${k.idField}: ${JSON.stringify(d.front)}`);
    fs.mkdirSync(path.join(this.dir, k.dir), { recursive: true });
    fs.writeFileSync(path.join(this.dir, k.dir, `${id}${k.suffix}`), definitionText(d.front, d.body ?? (d.kind === 'agent' ? AGENT_BODY : '')));
    return this;
  }

  /** Write several definitions (duplicates by kind and id: the last one wins, as a rewritten file). */
  addAll(ds: Definition[]): this {
    for (const d of ds) this.add(d);
    return this;
  }

  /** Write the registry's tenant.md (tenant defaults, secrets by reference, telemetry) with this front matter. */
  tenant(front: FrontMatter): this {
    fs.writeFileSync(path.join(this.dir, TENANT_FILE), definitionText(front, 'Tenant settings of the test registry.\n'));
    return this;
  }

  /** What the compiler says about `root` (errors, warnings). */
  diagnostics(root: string): Diagnostic[] {
    return compileBundle(this.dir, root).diagnostics;
  }

  /** The compiled bundle of `root` and what it needs; throws the compiler's errors if it refuses. */
  compile(root: string): CompiledBundle {
    const { bundle, diagnostics } = compileBundle(this.dir, root);
    const errors = diagnostics.filter((d) => d.severity === 'error');
    if (!bundle || errors.length) {
      throw new Error(`the test's definitions of ${root} do not compile (${this.dir}):\n${errors.map(formatDiagnostic).join('\n')}`);
    }
    return bundle;
  }

  /** Remove the temp registry. */
  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A scripted model definition (deterministic replies, no network). */
export function scripted(config: ScriptedModelConfig, model_id = 'scripted-test', over: FrontMatter = {}): Definition {
  return { kind: 'model', front: { model_id, version: '1.0.0', status: 'active', provider: 'scripted', scripted: config, supports_tools: true, ...over } };
}

/** A model definition of any provider (`over` holds the provider's own block, e.g. `openai: { base_url, model }`). */
export function model(model_id: string, provider: string, over: FrontMatter = {}): Definition {
  return { kind: 'model', front: { model_id, version: '1.0.0', status: 'active', provider, ...over } };
}


/** A tool definition of kind builtin: `name` is the built-in it runs; `over` sets any front-matter field (e.g. tool_id, approval_required). */
export function builtin(name: string, over: FrontMatter = {}): Definition {
  return {
    kind: 'tool',
    front: {
      tool_id: name,
      version: '1.0.0',
      status: 'active',
      description: `builtin ${name}`,
      kind: 'builtin',
      builtin: { name },
      input_schema: BUILTIN_SCHEMAS[name] ?? { type: 'object' },
      side_effects: false,
      approval_required: false,
      ...over,
    },
  };
}

/** A knowledge source definition (`backend`: inline documents or files); `over` sets any other field (required, citations_required…). */
export function kb(kb_id: string, backend: FrontMatter, over: FrontMatter = {}): Definition {
  return { kind: 'kb', front: { kb_id, version: '1.0.0', status: 'active', description: `Knowledge ${kb_id}.`, required: false, citations_required: false, backend, ...over } };
}

/** Any other definition (a knowledge source, guardrail, collection, role, or a tool of another kind). */
export function definition(kind: Kind, front: FrontMatter, body?: string): Definition {
  return { kind, front, body };
}

/** What a test says about the agent it runs; every other front-matter field takes the compiler's default. */
export interface AgentDef {
  agent_id: string;
  /** The model it runs on (its definition is written too). */
  model: Definition;
  /** Tools it may call, by definition (written too) and referenced from `tools.refs`. */
  tools?: Definition[];
  /** Extra fields of each tool reference (e.g. `{ arithmetic: { approval_required: true } }`). */
  toolRefs?: Record<string, FrontMatter>;
  /** Knowledge sources it searches, by definition (written too) and referenced from `knowledge.refs`. */
  knowledge?: Definition[];
  /** Any other front-matter field, merged over the defaults (runtime is merged one level deep). */
  front?: FrontMatter;
  /** The Markdown body (instructions). */
  body?: string;
  /** Other definitions the agent needs (members, knowledge sources, guardrails, a role…). */
  others?: Definition[];
}

/** The agent definition for `a` (front matter with the defaults a minimal valid agent needs). */
export function agentDefinition(a: AgentDef): Definition {
  const front = a.front ?? {};
  const toolIds = (a.tools ?? []).map((t) => String(t.front.tool_id));
  return {
    kind: 'agent',
    body: a.body,
    front: {
      spec_version: '1.0',
      agent_id: a.agent_id,
      version: '1.0.0',
      status: 'active',
      meta: { name: a.agent_id, description: `Test agent ${a.agent_id}.` },
      interface: { input: { schema: { type: 'string' }, examples: ['hi'] }, output: { schema: { type: 'string' } } },
      tools: { tool_choice: 'auto', refs: toolIds.map((ref) => ({ ref, ...(a.toolRefs?.[ref] ?? {}) })) },
      artifacts: { enabled: false },
      ...(a.knowledge?.length ? { knowledge: { refs: a.knowledge.map((k) => ({ ref: String(k.front.kb_id) })) } } : {}),
      ...front,
      runtime: { model: String(a.model.front.model_id), ...((front.runtime as FrontMatter | undefined) ?? {}) },
    },
  };
}

/** Every definition `a` needs: its model, tools, others and the agent itself. */
export function agentDefinitions(a: AgentDef): Definition[] {
  return [a.model, ...(a.tools ?? []), ...(a.knowledge ?? []), ...(a.others ?? []), agentDefinition(a)];
}

/** Compile one agent (with what it needs) from real definitions: the bundle and the root agent. */
export function compileAgent(a: AgentDef, defs = new Definitions()): { bundle: CompiledBundle; agent: CompiledAgent; defs: Definitions } {
  const bundle = defs.addAll(agentDefinitions(a)).compile(a.agent_id);
  return { bundle, agent: bundle.agents[a.agent_id], defs };
}
