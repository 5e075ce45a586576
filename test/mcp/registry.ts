/** A temp registry with one MCP server definition (the stdio fixture) and an agent that uses it. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const FIXTURE = path.join(__dirname, 'fixture-server.js');

export function mcpRegistry(opts: { mcpBlock?: string; agentTools?: string; modelTurns?: string } = {}): string {
  const dir = fs.mkdtempSync(path.join(process.env.LOOM_TEST_DIR ?? os.tmpdir(), 'mcp-reg-'));
  const w = (rel: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  w('models/calc-model.model.md', `---
model_id: calc-model
version: 1.0.0
status: active
provider: scripted
scripted:
  turns:
${opts.modelTurns ?? `    - tool_calls:
        - { id: add-1, name: calc__add, arguments: { a: 2, b: 3 } }
    - content: 'sum is {{last_tool_result}}'`}
---
Scripted.
`);
  w('tools/calc.tool.md', `---
tool_id: calc
version: 1.0.0
status: active
description: The fixture MCP server
kind: mcp
mcp:
${opts.mcpBlock ?? `  command: node
  args: ['${FIXTURE}']
  env: [FIXTURE_LOG]
  tools:
    - { name: add, approval_required: true, max_calls_per_run: 2 }
    - { name: echo }`}
---
The fixture server.
`);
  w('agents/calc-agent.agent.md', `---
spec_version: '1.0'
agent_id: calc-agent
version: 1.0.0
status: draft
meta:
  name: Calc agent
  description: Adds numbers with the tools of an MCP server, for the tests.
  owner: tests
runtime:
  model: calc-model
interface:
  input:
    schema: { type: object }
    examples: [{ q: add }]
  output:
    schema: { type: string }
tools:
  refs:
${opts.agentTools ?? '    - ref: calc'}
artifacts:
  enabled: false
---

# Purpose
Add numbers.

# System behavior
Call the tools.

# Rules
- Only add.
`);
  return dir;
}
