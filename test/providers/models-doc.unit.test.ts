/**
 * docs/models.md: every model file it shows compiles, as the runtime model of an agent (the demo
 * trip planner with its model swapped), into the provider and block the file names. And the model
 * file rules of the native providers: an unknown provider is refused listing the supported ones, a
 * block of another provider is refused, a Bedrock model's AWS region is its data_residency region.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compileBundle } from '../../src/compiler';
import { MODEL_PROVIDERS } from '../../src/compiled/types';

const ROOT = path.resolve(__dirname, '..', '..');
const DEMO = path.join(ROOT, 'examples', 'demo');
const DOC = fs.readFileSync(path.join(ROOT, 'docs', 'models.md'), 'utf8');

/** Each ```yaml block of the page that is a whole model file, with the heading above it. */
function docModelFiles(): { heading: string; text: string }[] {
  const out: { heading: string; text: string }[] = [];
  let heading = '';
  const re = /^## (.+)$|^```yaml\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(DOC); m; m = re.exec(DOC)) {
    if (m[1]) heading = m[1];
    else if (m[2].startsWith('---\n') && m[2].includes('model_id:')) out.push({ heading, text: m[2] });
  }
  return out;
}

/** The demo registry with its agent on the given model file (and the agent's front matter edited). */
function compileWith(modelFile: string, agentEdit: (src: string) => string = (s) => s) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-models-'));
  fs.cpSync(DEMO, dir, { recursive: true });
  const id = /^model_id: (\S+)$/m.exec(modelFile)![1];
  fs.rmSync(path.join(dir, 'models', 'trip-planner-model.model.md'));
  fs.writeFileSync(path.join(dir, 'models', `${id}.model.md`), modelFile);
  const agentPath = path.join(dir, 'agents', 'trip-planner.agent.md');
  fs.writeFileSync(agentPath, agentEdit(fs.readFileSync(agentPath, 'utf8').replace('model: trip-planner-model', `model: ${id}`)));
  const r = compileBundle(dir, 'trip-planner');
  fs.rmSync(dir, { recursive: true, force: true });
  return r;
}

const files = docModelFiles();

test('docs/models.md shows one model file per provider and local server', () => {
  expect(files.map((f) => f.heading)).toEqual([
    'OpenAI', 'Anthropic', 'Gemini', 'Bedrock', 'Azure OpenAI', 'Ollama', 'vLLM (through the `openai` provider)', 'LM Studio (through the `openai` provider)',
  ]);
  const providers = new Set(files.map((f) => /^provider: (\S+)$/m.exec(f.text)![1]));
  expect([...providers].sort()).toEqual(MODEL_PROVIDERS.filter((p) => p !== 'scripted').sort());
});

test.each(files)('$heading compiles', ({ text }) => {
  const r = compileWith(text);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const model = r.bundle!.agents['trip-planner'].runtime.model;
  const provider = /^provider: (\S+)$/m.exec(text)![1];
  expect(model.provider).toBe(provider);
  expect(model[provider as 'openai']).toBeDefined();
});

const bedrockFile = files.find((f) => f.heading === 'Bedrock')!.text;

test("a Bedrock model's AWS region is its data_residency region", () => {
  const r = compileWith(bedrockFile, (s) => s.replace('policies:\n', 'policies:\n  data_residency: eu\n'));
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(r.bundle!.agents['trip-planner'].runtime.model.region).toBe('eu-central-1');
  const us = compileWith(bedrockFile.replace('region: eu-central-1', 'region: us-east-1'), (s) => s.replace('policies:\n', 'policies:\n  data_residency: eu\n'));
  expect(us.diagnostics.map((d) => d.code)).toContain('AGF140');
});

test('a Bedrock file whose region differs from bedrock.region is refused', () => {
  const r = compileWith(bedrockFile.replace('provider: bedrock\n', 'provider: bedrock\nregion: us-east-1\n'));
  const d = r.diagnostics.find((x) => x.code === 'REG004' && x.field === 'region');
  expect(d?.message).toContain('differs from bedrock.region `eu-central-1`');
});

test('an unknown provider is refused, listing the supported ones', () => {
  const r = compileWith(files[0].text.replace('provider: openai', 'provider: mistral'));
  const d = r.diagnostics.find((x) => x.severity === 'error' && x.field === 'provider');
  expect(d?.message).toBe(`invalid value; write one of: ${MODEL_PROVIDERS.map((p) => JSON.stringify(p)).join(', ')}`);
});

test("another provider's block is refused, and the named provider's block is required", () => {
  const extra = compileWith(files[1].text.replace('provider: anthropic\n', 'provider: anthropic\ngoogle:\n  model: gemini-2.5-flash\n  api_key_env: GEMINI_API_KEY\n'));
  expect(extra.diagnostics.find((x) => x.code === 'REG004' && x.field === 'google')?.message).toContain('`google` block given but provider is `anthropic`');
  const missing = compileWith(files[1].text.replace('provider: anthropic', 'provider: ollama'));
  expect(missing.diagnostics.some((x) => x.severity === 'error' && /ollama/.test(x.message))).toBe(true);
});

test('a key is named by an env variable: anthropic, google and azure require api_key_env; bedrock a key or access keys', () => {
  const noKey = compileWith(files[1].text.replace('  api_key_env: ANTHROPIC_API_KEY\n', ''));
  expect(noKey.diagnostics.some((x) => x.severity === 'error' && /api_key_env/.test(x.message))).toBe(true);
  const noAws = compileWith(bedrockFile.replace('  access_key_id_env: AWS_ACCESS_KEY_ID\n', ''));
  expect(noAws.diagnostics.some((x) => x.severity === 'error' && x.field.startsWith('bedrock'))).toBe(true);
  const azureBoth = compileWith(files.find((f) => f.heading === 'Azure OpenAI')!.text.replace('  resource_name: contoso-openai\n', '  resource_name: contoso-openai\n  base_url: https://gw.example/openai\n'));
  expect(azureBoth.diagnostics.some((x) => x.severity === 'error' && x.field.startsWith('azure'))).toBe(true);
});
