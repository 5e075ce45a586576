/**
 * What every front-matter section of an agent shares while it compiles: the context (`Ctx`: the
 * source file, the registry, the diagnostics in the order they are found, the agents the bundle
 * needs, the registry entries read) and the agent being built (`AgentBuild`: the normalized front
 * matter and what each section has resolved so far for the sections after it and the output).
 */
import type {
  BodySection, CompiledGuardrail, CompiledKnowledge, CompiledModel, CompiledRole, CompiledTool, CompiledCollection,
  Diagnostic, EscalationRule, ExecutionPolicy, OrchestrationPattern, Status, ToolManifest,
} from '../../compiled/types';
import { diag, fieldPath, posOf, type PathPart, type SourceFile } from '../source';
import type { Entry, Registry } from '../registry';
import type { FileFieldRule } from '../ui';
import type { Inheritance } from '../inheritance';
import { asStr, statusOf, type Obj } from '../values';

export class Ctx {
  diags: Diagnostic[] = [];
  needs = new Set<string>();
  touched: Entry[] = [];
  constructor(public src: SourceFile, public reg: Registry, public data: Obj) {}
  err(path: PathPart[], code: string, message: string, key = false): void {
    const p = posOf(this.src, path, key);
    this.diags.push(diag(this.src.file, p.line, p.column, 'error', code, fieldPath(path), message));
  }
  warn(path: PathPart[], code: string, message: string, key = false): void {
    const p = posOf(this.src, path, key);
    this.diags.push(diag(this.src.file, p.line, p.column, 'warning', code, fieldPath(path), message));
  }
  /** AGF031: an active agent must not reference a disabled agent (reported at the referencing line). */
  disabledAgent(path: PathPart[], id: string, how: string): void {
    const e = this.reg.entries.agent.get(id);
    if (!e || statusOf(e.data) !== 'disabled' || statusOf(this.data) !== 'active') return;
    this.err(path, 'AGF031', `agent \`${id}\` (${how}) is disabled and cannot be used by an active agent; re-enable it (status: active) or remove the reference`);
  }
  get(kind: Entry['kind'], id: string): Entry | undefined {
    const e = this.reg.entries[kind].get(id);
    if (e && kind !== 'agent' && !this.touched.includes(e)) this.touched.push(e);
    return e;
  }
  known(kind: Entry['kind']): string {
    const ids = [...this.reg.entries[kind].keys()].sort();
    if (!ids.length) return 'none registered';
    return ids.length > 8 ? `${ids.slice(0, 8).join(', ')}, …` : ids.join(', ');
  }
}

export type GuardrailPosition = 'input' | 'tool_input' | 'tool_output' | 'output';
export type MemoryMode = 'none' | 'session' | 'project' | 'user';

/** The agent being built: each section fills its own fields, later sections and the output read them. */
export class AgentBuild {
  readonly agentId: string;
  readonly status: Status;
  readonly active: boolean;
  // body
  bodySections: BodySection[] = [];
  instructions = '';
  // runtime
  model: CompiledModel | undefined;
  fallback: CompiledModel | undefined;
  // interface + ui
  fileFields: Record<string, FileFieldRule> = {};
  // role
  role: CompiledRole | undefined;
  // tools
  toolRefs: CompiledTool[] = [];
  seenTools = new Set<string>();
  toolChoice: 'none' | 'auto' | 'required' = 'auto';
  // knowledge
  kbRefs: CompiledKnowledge[] = [];
  // memory
  memoryMode: MemoryMode = 'none';
  readCollections: CompiledCollection[] = [];
  writeCollections: CompiledCollection[] = [];
  // guardrails
  guardrails: Record<GuardrailPosition, CompiledGuardrail[]> = { input: [], tool_input: [], tool_output: [], output: [] };
  usedGuardrails = new Set<string>();
  confirmTools: string[] = [];
  // local agents and execution policy
  aliases = new Map<string, string>();
  executionPolicy: ExecutionPolicy = { id: 'agf.react', config: {} };
  // orchestration
  delegates: string[] = [];
  pattern: OrchestrationPattern | undefined;
  /** Graph nodes' inline nested patterns, each an agent of its own in the bundle (sections/pattern.ts). */
  inlinePatterns: { agent_id: string; node: string; pattern: OrchestrationPattern }[] = [];
  escalation: EscalationRule[] = [];
  // credentials_ref
  credentialRefs: { ref: string; path: PathPart[] }[] = [];
  // routing
  toolManifest: ToolManifest | undefined;
  // what an orchestrator whose own model turn never runs hands down to its members (orchestrator-fields.ts)
  inherit: Inheritance | undefined;

  /** `d` is the normalized front matter; `fileId` the id the registry knows the file by. */
  constructor(readonly d: Obj, fileId: string) {
    this.agentId = asStr(d.agent_id) ?? fileId;
    this.status = statusOf(d);
    this.active = this.status === 'active';
  }
}
