/**
 * `loom init [DIR]`: the starter. Writes a registry that works before anything is configured — one
 * agent (`assistant`) calling the built-in calculator tool within its role, on a scripted model
 * (offline, deterministic replies; a real provider is one edit of the model file), and a README
 * that says how to validate, run and change it — into DIR
 * (default: the current folder, created when missing). It never overwrites: when any file it would
 * write exists, it writes nothing and names them (exit 1). The project passes `loom validate --strict`.
 */
import * as fs from 'fs';
import * as path from 'path';
import { defineCommand } from '../args';

export const STARTER_AGENT = 'assistant';

/** The starter's files, relative to DIR. */
export function starterFiles(): Record<string, string> {
  return {
    [path.join('agents', `${STARTER_AGENT}.agent.md`)]: `---
spec_version: '1.0'
agent_id: ${STARTER_AGENT}
version: 0.1.0
status: active
meta:
  name: Assistant
  description: Works out an arithmetic expression with the calculator tool and says the result.
  owner: me
runtime:
  model: assistant-model
  temperature: 0
  timeout_seconds: 120
  max_turns: 4
  max_tool_calls: 2
interface:
  input:
    schema:
      type: object
      properties:
        expression: { type: string, minLength: 1, description: 'An arithmetic expression, e.g. "3 * 140 + 4 * 60".' }
      required: [expression]
    examples:
      - expression: 3 * 140 + 4 * 60
  output:
    schema: { type: string }
role: assistant-role
tools:
  tool_choice: auto
  refs:
    - ref: calculator
artifacts: { enabled: false }
---

# Purpose
Work out the user's arithmetic expression.

# System behavior
Evaluate the expression with the calculator tool, then say the expression and its result.

# Rules
- Never compute in your head: always call the calculator.
`,
    [path.join('models', 'assistant-model.model.md')]: `---
model_id: assistant-model
version: 0.1.0
status: active
# Scripted: deterministic replies, no network and no API key. For a real model, replace the
# provider and the scripted block with, e.g.:
#   provider: openai
#   openai: { base_url: https://api.openai.com/v1, model: gpt-4o-mini, api_key_env: OPENAI_API_KEY }
provider: scripted
scripted:
  turns:
    # turn 0: call the calculator with the input's expression
    - tool_calls:
        - name: calculator
          arguments: { expression: '{{input.expression}}' }
    # turn 1: the answer, from the tool's result
    - content: '{{input.expression}} = {{last_tool_result}}'
---

The model of the starter's agent.
`,
    [path.join('tools', 'calculator.tool.md')]: `---
tool_id: calculator
version: 1.0.0
status: active
description: Evaluate an arithmetic expression (+ - * / parentheses, decimals). Returns the number.
kind: builtin
builtin: { name: calculator }
input_schema:
  type: object
  properties:
    expression: { type: string, description: 'For example "3 * 140 + 4 * 60".' }
  required: [expression]
  additionalProperties: false
side_effects: false
approval_required: false
---

One of Agentloom's built-in tools: the worker runs it.
`,
    [path.join('roles', 'assistant-role.iam.md')]: `---
role_id: assistant-role
version: 0.1.0
status: active
description: The tools the assistant may call, at most; an agent's tools must be within its role.
tools:
  - ref: calculator
    max_calls_per_run: 2
---
`,
    'README.md': `# My Agentloom project

Made by \`loom init\`: one agent, \`agents/${STARTER_AGENT}.agent.md\`, that calls the built-in
\`calculator\` tool (\`tools/\`) within its role (\`roles/\`), on a scripted model
(\`models/assistant-model.model.md\`: deterministic replies, no network, no API key).

\`\`\`bash
loom validate --strict                                          # check the definitions
loom run ${STARTER_AGENT} --input '{"expression": "3 * 140 + 4 * 60"}'   # prints "3 * 140 + 4 * 60 = 660"
\`\`\`

\`loom run\` starts a local Temporal dev server and a worker when no server is configured;
\`loom dev\` runs them in the foreground; \`TEMPORAL_ADDRESS\` (or \`--address\`) points at a cluster.

Next steps:
- Give the model a real provider: replace \`provider: scripted\` and its \`scripted:\` block (the model file shows how).
- Add tools under \`tools/\` (and to the role), agents under \`agents/\`.
`,
  };
}

export const run = defineCommand(
  'init',
  {
    usage: 'loom init [DIR]',
    options: {},
    positionals: { min: 0, max: 1, names: ['DIR'] },
  },
  async (args) => {
    const dir = path.resolve(args.positionals[0] ?? process.cwd());
    if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) {
      process.stderr.write(`loom init: ${dir} is not a folder\n`);
      return 1;
    }
    const files = starterFiles();
    const taken = Object.keys(files).filter((rel) => fs.existsSync(path.join(dir, rel)));
    if (taken.length) {
      process.stderr.write(`loom init: ${taken.join(', ')} already exist${taken.length === 1 ? 's' : ''} in ${dir}; nothing was written (loom init never overwrites: choose an empty folder or move them away)\n`);
      return 1;
    }
    for (const [rel, text] of Object.entries(files)) {
      const file = path.join(dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // 'wx': a file that appeared since the check above is not overwritten either.
      fs.writeFileSync(file, text, { flag: 'wx' });
      process.stdout.write(`wrote ${path.join(path.relative(process.cwd(), dir) || '.', rel)}\n`);
    }
    const cd = path.relative(process.cwd(), dir);
    process.stdout.write(`\nnext: ${cd ? `cd ${cd} && ` : ''}loom validate --strict && loom run ${STARTER_AGENT} --input '{"expression": "3 * 140 + 4 * 60"}'\n`);
    return 0;
  },
);
