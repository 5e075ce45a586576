/**
 * The layer order of src/, bottom first: a folder imports only folders of its own layer or of the
 * layers below it (type-only imports included), and no two folders import each other. ESLint holds
 * this (eslint.config.js builds its import rules from this table) and `npm run layout:report`
 * counts what breaks it. A new folder of src/ must be added here, in the layer it belongs to.
 */
const LAYERS = [
  { name: 'the compiled payload model: what the compiler produces and every layer reads', folders: ['compiled'] },
  { name: 'the shared contract: run inputs and results, signal/update/query definitions, the payload languages', folders: ['shared'] },
  { name: 'platform: environment, secrets, trace context, the Temporal connection and dev server, payload encryption', folders: ['platform', 'codec', 'connection'] },
  { name: 'the store: blobs, artifacts and records on a folder, PostgreSQL or S3', folders: ['store'] },
  { name: 'governance: PII, content, residency, lifecycle, audit, network and shell policy', folders: ['governance'] },
  { name: 'the engine core, pure: the execution loop, orchestration patterns and policies, strategies, routing', folders: ['runtime', 'orchestration', 'strategies', 'routing'] },
  { name: 'the compiler: definitions to compiled payloads', folders: ['compiler'] },
  { name: 'the MCP client: connections to MCP servers and their tool lists', folders: ['mcp'] },
  { name: 'activities: every model, tool, guardrail and store call', folders: ['activities'] },
  { name: 'workflows: the durable runs', folders: ['workflows'] },
  { name: 'telemetry: spans, metrics and logs of runs', folders: ['telemetry'] },
  { name: 'the operator layer: runs, decisions, the inbox, status, shared by the CLI, the MCP server and the client', folders: ['operator'] },
  { name: 'the Temporal plugin', folders: ['plugin'] },
  { name: 'entry points: the worker, the client, the CLI, the MCP server, test helpers', folders: ['worker', 'client', 'cli', 'mcp-server', 'testing'] },
];

/** Layer index of each folder of src/. */
const LAYER_OF = Object.fromEntries(LAYERS.flatMap((l, i) => l.folders.map((f) => [f, i])));

module.exports = { LAYERS, LAYER_OF };
