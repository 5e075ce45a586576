/**
 * `npm run bench:compile`: generates a registry of 1,000 agents and 200 tools in a temp folder,
 * then validates + compiles every agent and prints agents/s and peak RSS.
 * Target (2-core box): ≥ 1,000 agents/s, < 300 MB.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compileFromRegistry, loadRegistry, validateRegistry, warmUpValidators } from '../src/compiler';

const AGENTS = Number(process.env.BENCH_AGENTS ?? 1000);
const TOOLS = Number(process.env.BENCH_TOOLS ?? 200);

function generate(dir: string): void {
  for (const d of ['agents', 'models', 'tools', 'knowledge', 'guardrails', 'roles']) fs.mkdirSync(path.join(dir, d), { recursive: true });
  fs.writeFileSync(path.join(dir, 'models', 'bench-model.model.md'), '---\nmodel_id: bench-model\nversion: 1.0.0\nstatus: active\nprovider: scripted\nscripted: { turns: [ { content: "ok" } ] }\ntemperature_range: [0, 1]\n---\n');
  fs.writeFileSync(path.join(dir, 'knowledge', 'bench-kb.kb.md'), '---\nkb_id: bench-kb\nversion: 1.0.0\nstatus: active\nbackend: { type: inline, documents: [ { id: d1, text: hello } ] }\n---\n');
  fs.writeFileSync(path.join(dir, 'guardrails', 'bench-guard.guardrail.md'), '---\nguardrail_id: bench-guard\nversion: 1.0.0\nstatus: active\nbehaviour: { result_type: score }\nprovider: { type: builtin, name: keyword-score }\n---\n');
  const grants: string[] = [];
  for (let t = 0; t < TOOLS; t++) {
    const id = `tool-${t}`;
    grants.push(`  - ref: ${id}\n    max_calls_per_run: 5`);
    fs.writeFileSync(path.join(dir, 'tools', `${id}.tool.md`), `---
tool_id: ${id}
version: 1.0.${t}
status: active
description: Benchmark tool ${t}.
kind: builtin
builtin: { name: echo }
input_schema:
  type: object
  properties:
    text: { type: string }
    secret: { type: string, sensitive: true }
  required: [text]
side_effects: ${t % 3 === 0}
max_calls_per_run: 10
---
`);
  }
  fs.writeFileSync(path.join(dir, 'roles', 'bench-role.iam.md'), `---\nrole_id: bench-role\nversion: 1.0.0\nstatus: active\ntools:\n${grants.join('\n')}\n---\n`);
  for (let a = 0; a < AGENTS; a++) {
    const tools = [0, 1, 2, 3].map((k) => `    - ref: tool-${(a * 7 + k * 13) % TOOLS}`).join('\n');
    const member = a > 0 && a % 10 === 0 ? `local_agents:\n  - { alias: helper, agent_ref: agent-${a - 1} }\nexecution_policy:\n  id: agf.sequential\n  config:\n    steps:\n      - agent: helper\n        input_mapping:\n          question: "parent.input.question"\n` : '';
    fs.writeFileSync(path.join(dir, 'agents', `agent-${a}.agent.md`), `---
spec_version: "1.2"
agent_id: "agent-${a}"
version: "1.0.0"
status: "active"
meta:
  name: "Agent ${a}"
  description: "Benchmark agent number ${a}, answering questions with a few tools."
runtime:
  model: "bench-model"
  temperature: 0.2
interface:
  input:
    schema: { type: object, properties: { question: { type: string } }, required: [question] }
    examples: [ { question: "hi" } ]
  output:
    schema: { type: object, properties: { answer: { type: string } }, additionalProperties: false }
tools:
  tool_choice: auto
  refs:
${tools}
knowledge:
  refs: [ { ref: bench-kb } ]
artifacts: { enabled: false }
role: bench-role
guardrails:
  input:
    - { ref: bench-guard, severity_threshold: 5, on_fail: block }
observability:
  logs: { enabled: true, exporter: otlp }
orchestration:
  can_be_invoked_as_tool: true
${member}---
# Purpose
Benchmark agent ${a}.

# System behavior
Answer the question using the tools.

# Rules
- Be brief.
`);
  }
}

function main(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-'));
  generate(dir);
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 50);
  // One-time cost of a process: compiling the JSON Schemas of every kind. Reported apart, and
  // included in the cold figure below.
  const w0 = process.hrtime.bigint();
  warmUpValidators();
  const warm = Number(process.hrtime.bigint() - w0) / 1e9;
  const t0 = process.hrtime.bigint();
  const reg = loadRegistry(dir);
  const t1 = process.hrtime.bigint();
  const diags = validateRegistry(reg);
  const t2 = process.hrtime.bigint();
  let compiled = 0;
  let errors = diags.filter((d) => d.severity === 'error').length;
  for (const id of reg.entries.agent.keys()) {
    const r = compileFromRegistry(reg, id);
    if (r.bundle) compiled++;
    else errors++;
  }
  const t3 = process.hrtime.bigint();
  const secs = Number(t3 - t0) / 1e9;
  process.stdout.write(`phases: load+parse ${(Number(t1 - t0) / 1e6).toFixed(0)} ms, validate ${(Number(t2 - t1) / 1e6).toFixed(0)} ms, bundles ${(Number(t3 - t2) / 1e6).toFixed(0)} ms\n`);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  fs.rmSync(dir, { recursive: true, force: true });
  const rate = AGENTS / secs;
  process.stdout.write(`agents: ${AGENTS}, tools: ${TOOLS}, compiled bundles: ${compiled}, errors: ${errors}\n`);
  process.stdout.write(`schema warm-up (once per process): ${(warm * 1000).toFixed(0)} ms; cold (warm-up included): ${(AGENTS / (secs + warm)).toFixed(0)} agents/s\n`);
  process.stdout.write(`validate+compile: ${secs.toFixed(3)} s, ${rate.toFixed(0)} agents/s, peak RSS ${(peak / 1024 / 1024).toFixed(0)} MB\n`);
  process.stdout.write(`target: ≥ 1000 agents/s and < 300 MB → ${rate >= 1000 && peak < 300 * 1024 * 1024 ? 'OK' : 'MISSED'}\n`);
}

if (process.env.BENCH_KEEP) { const d = fs.mkdtempSync(path.join(os.tmpdir(), "loom-bench-keep-")); generate(d); console.log(d); } else main();
