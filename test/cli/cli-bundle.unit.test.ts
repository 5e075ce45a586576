/**
 * What the CLI's one-file build holds (scripts/build-cli-bundle.ts, esbuild's metafile of a build not
 * written): every command module and the Temporal client stack inside; the modules only some commands
 * use (the worker and its bundler, OpenTelemetry, the MCP and AWS SDKs, pg, zod, yaml) outside, as
 * imports left to node_modules; no `import()` left in it; our modules' own-location paths pointed at
 * their tsc-built copies under dist/src; Temporal's protobuf root without the worker's and Temporal
 * Cloud's namespaces, checked to resolve.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Metafile } from 'esbuild';
import * as protobuf from 'protobufjs/light';
import { buildCliBundle, heavyInputs, PRUNED_PROTO_NAMESPACES, prunedProtoModule } from '../../scripts/build-cli-bundle';

jest.setTimeout(120_000);

const REPO = path.join(__dirname, '../..');
let meta: Metafile;
let code: string;
let inputs: string[];
let externals: Set<string>;

beforeAll(async () => {
  ({ metafile: meta, code } = await buildCliBundle(false));
  inputs = Object.keys(meta.inputs);
  externals = new Set(Object.values(meta.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path)));
});

test('every command module and the Temporal client stack are inside', () => {
  const commands = fs.readdirSync(path.join(REPO, 'src/cli/commands')).filter((f) => f.endsWith('.ts'));
  expect(commands.length).toBeGreaterThan(20);
  for (const c of commands) expect(inputs).toContain(`src/cli/commands/${c}`);
  for (const pkg of ['@temporalio/client/', '@temporalio/common/', '@temporalio/proto/', '@temporalio/envconfig/', '@grpc/grpc-js/', 'protobufjs/']) {
    expect(inputs.some((f) => f.includes(`node_modules/${pkg}`))).toBe(true);
  }
});

test('the heavy packages stay outside, imported from node_modules when a command uses them', () => {
  expect(heavyInputs(meta)).toEqual([]);
  const inside = (pkg: string) => inputs.filter((f) => f.includes(`node_modules/${pkg}/`));
  for (const pkg of ['@temporalio/worker', '@temporalio/workflow', 'webpack', '@opentelemetry', '@modelcontextprotocol', '@aws-sdk', 'pg', 'zod', 'yaml', 'ajv', 'ts-node', 'typescript', '@swc']) {
    expect(inside(pkg)).toEqual([]);
  }
  for (const ext of ['@temporalio/worker', '@aws-sdk/client-s3', 'pg', 'zod', 'yaml', '@opentelemetry/sdk-trace-base']) expect(externals).toContain(ext);
});

test('no dynamic import() is left (require, as the tsc build does); own-location paths point under dist/src, and only in code', () => {
  const has = (text: string) => code.includes(text); // not toContain: a failure would print 2.5 MB
  expect(/[^\w$.]import\(/.test(code)).toBe(false);
  // The dev server's project root is found from its module's folder; the failure converter is a file beside its module.
  expect(has('require("path").join(__loomBundleDir,"src/platform")')).toBe(true);
  expect(has('require("path").join(__loomBundleDir,"src/codec")')).toBe(true);
  // The workflow sources a worker started by the CLI bundles: dist/src/plugin/../workflows.
  const resolve = /require\.resolve\(require\("path"\)\.join\(([\w$]+),"\.\.\/workflows"\)\)/.exec(code);
  expect(resolve).not.toBeNull();
  expect(has(`${resolve![1]}=require("path").join(__loomBundleDir,"src/plugin")`)).toBe(true);
  // Strings keep their text: the starter project `loom init` writes uses __dirname, a message quotes require.resolve.
  expect(has("path.resolve(__dirname, '..', '..')")).toBe(true);
  expect(has("require.resolve('./my-policy')")).toBe(true);
  // What the rewrite writes has single quotes, which esbuild's output has only in strings.
  expect(has("require('path')")).toBe(false);
});

test("Temporal's protobuf root is bundled without the worker's and Temporal Cloud's namespaces; the rest resolves", () => {
  const source = fs.readFileSync(require.resolve('@temporalio/proto/protos/json-module.js'), 'utf8');
  const pruned = prunedProtoModule(source);
  // The module as the bundle holds it, run with its own require: a root with everything else.
  const mod = { exports: {} as protobuf.Root };
  delete protobuf.roots.__temporal;
  new Function('require', 'module', 'exports', pruned)(require, mod, mod.exports);
  const root = mod.exports;
  expect(root).toBe(protobuf.roots.__temporal);
  root.resolveAll();
  expect(root.lookup('coresdk')).toBeNull();
  expect(root.lookup('temporal.api.cloud')).toBeNull();
  expect(root.lookupService('temporal.api.workflowservice.v1.WorkflowService').methodsArray.length).toBeGreaterThan(50);
  expect(root.lookupType('temporal.api.history.v1.HistoryEvent')).toBeDefined();
  expect(pruned.length).toBeLessThan(source.length * 0.8);
  expect(PRUNED_PROTO_NAMESPACES.map((n) => n.join('.'))).toEqual(['coresdk', 'temporal.api.cloud']);
  expect(code.includes('coresdk:{')).toBe(false); // esbuild writes the literal's keys bare
  expect(code.includes('WorkflowService:{methods:{')).toBe(true);
  // A module of another shape, or a version without a namespace to prune, fails the build.
  expect(() => prunedProtoModule(`${source}\n$root.addJSON({});`)).toThrow(/not one Root.addJSON/);
  expect(() => prunedProtoModule(source.replace('"coresdk": {', '"coresdk2": {'))).toThrow(/no namespace coresdk to prune/);
});
