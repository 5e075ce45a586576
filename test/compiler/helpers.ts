import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const BASE = path.join(ROOT, 'test', 'fixtures', 'registries', 'base');
export const INVALID = path.join(ROOT, 'test', 'fixtures', 'invalid');
export const EXAMPLE = path.join(ROOT, 'examples', 'customer-support');

/** Copies a registry to a fresh temp folder. */
export function tempRegistry(from = BASE): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-reg-'));
  fs.cpSync(from, dir, { recursive: true });
  return dir;
}

export const BODY = '# Purpose\nFixture.\n\n# System behavior\nAnswer.\n\n# Rules\n- Be brief.\n';

/** A complete, valid agent front matter (as data) used to host seed snippets. */
export function baseAgent(id: string): Record<string, unknown> {
  return {
    spec_version: '1.2',
    agent_id: id,
    version: '1.0.0',
    status: 'active',
    meta: { name: 'Seed host', description: 'Hosts one seed example inside an otherwise complete agent file.' },
    runtime: { model: 'claude-4-sonnet' },
    interface: {
      input: { schema: { type: 'object', properties: { question: { type: 'string' } } }, examples: [{ question: 'hi' }] },
      output: { schema: { type: 'object', properties: { answer: { type: 'string' } }, additionalProperties: false } },
    },
    tools: { tool_choice: 'auto', refs: [{ ref: 'search-product-kb' }, { ref: 'send-email' }, { ref: 'create-ticket' }, { ref: 'delete-record' }] },
    artifacts: { enabled: false },
    role: 'wide-role',
  };
}
