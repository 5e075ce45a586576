/**
 * Seed 001 ui/localization at the edges users touch: `loom describe` prints the form an external UI
 * renders (locale overlay with fallback), and `loom run` refuses file inputs outside `accept` /
 * `max_size_mb` before anything starts. No server: both end before a connection is made. In the
 * integration project all the same: each case starts the CLI in its own process.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { BODY, ROOT, baseAgent, tempRegistry } from '../compiler/helpers';
import { describeForm, isBcp47 } from '../../src/compiler/ui';
import { accepts, fileInputErrors } from '../../src/operator/file-inputs';
import type { CompiledAgent } from '../../src/compiled/types';

const loom = path.join(ROOT, 'bin', 'loom.js');
const env = { ...process.env, LOOM_FROM_SOURCE: '1' };

/** The seed's customer-support ui block, plus a select and a file field. */
function uiAgent(id: string): Record<string, unknown> {
  const a = baseAgent(id);
  a.interface = {
    input: {
      schema: {
        type: 'object',
        properties: { question: { type: 'string' }, account_id: { type: 'string' }, topic: { type: 'string' }, receipt: { type: 'string' }, urgent: { type: 'boolean' } },
        required: ['question'],
      },
      examples: [{ question: 'I was charged twice' }],
    },
    output: { schema: { type: 'object', properties: { answer: { type: 'string' } }, additionalProperties: false } },
  };
  a.ui = {
    icon: 'headset', display_name: 'Customer Support', short_description: 'Get help with product and billing questions.', order: 5, featured: true,
    ui_hints: {
      question: { widget: 'textarea', label: 'Your question', placeholder: 'What can I help you with?' },
      account_id: { widget: 'text', label: 'Account ID', placeholder: 'acct-XXXXX', helper_text: 'Optional. Speeds up lookup if provided.' },
      topic: { widget: 'select', label: 'Topic', options: [{ value: 'billing', label: 'Billing issue' }, { value: 'technical', label: 'Technical issue' }] },
      receipt: { widget: 'file', label: 'Receipt', accept: ['image/*', '.pdf'], max_size_mb: 1 },
    },
  };
  a.localization = {
    supported_locales: ['en', 'fr', 'de', 'ja'], default_locale: 'en',
    localized_ui: {
      fr: {
        display_name: 'Support Client',
        ui_hints: { question: { label: 'Votre question' }, topic: { options: [{ value: 'billing', label: 'Facturation' }] } },
      },
    },
  };
  return a;
}

function registryWith(id: string, data: Record<string, unknown>): string {
  const reg = tempRegistry();
  fs.writeFileSync(path.join(reg, 'agents', `${id}.agent.md`), `---\n${YAML.stringify(data)}---\n${BODY}`);
  return reg;
}

describe('loom describe', () => {
  const reg = registryWith('support-ui', uiAgent('support-ui'));

  it('prints the default-locale form with every input field, hinted or not', () => {
    const r = spawnSync('node', [loom, 'describe', 'support-ui', '--registry', reg, '--json'], { env });
    expect(r.stderr.toString()).toBe('');
    expect(r.status).toBe(0);
    const form = JSON.parse(r.stdout.toString());
    expect(form).toMatchObject({ agent_id: 'support-ui', locale: 'en', display_name: 'Customer Support', featured: true, order: 5, icon: 'headset' });
    expect(form.fields.map((f: { name: string; widget: string }) => `${f.name}:${f.widget}`)).toEqual(['question:textarea', 'account_id:text', 'topic:select', 'receipt:file', 'urgent:checkbox']);
    expect(form.fields[0]).toMatchObject({ label: 'Your question', required: true });
    expect(form.fields[4]).toMatchObject({ label: 'urgent', required: false });
    expect(form.fields[3]).toMatchObject({ accept: ['image/*', '.pdf'], max_size_mb: 1 });
  }, 60_000);

  it('overlays a locale block and inherits what it does not list', () => {
    const r = spawnSync('node', [loom, 'describe', 'support-ui', '--registry', reg, '--locale', 'fr'], { env });
    expect(r.status).toBe(0);
    const text = r.stdout.toString();
    expect(text).toContain('Support Client  (support-ui, locale fr)');
    expect(text).toContain('Votre question *  [textarea] question');
    expect(text).toContain('Account ID  [text] account_id'); // not listed under fr: inherited
    expect(text).toContain('Facturation ("billing"), Technical issue ("technical")');
  }, 60_000);

  it('falls back to default_locale for an unsupported locale, and says so', () => {
    const form = describeForm(uiAgent('x'), 'pt-BR');
    expect(form.locale).toBe('en');
    expect(form.fell_back_from).toBe('pt-BR');
    expect(form.display_name).toBe('Customer Support');
  });

  it('refuses an agent whose ui does not compile, with the diagnostic', () => {
    const bad = uiAgent('bad-ui');
    (bad.ui as Record<string, unknown>).ui_hints = { topic: { widget: 'select' } };
    const r = spawnSync('node', [loom, 'describe', 'bad-ui', '--registry', registryWith('bad-ui', bad)], { env });
    expect(r.status).toBe(1);
    expect(r.stderr.toString()).toMatch(/error AGF091: widget `select` needs `options`/);
  }, 60_000);
});

describe('file fields at the boundary', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-files-'));
  const pdf = path.join(dir, 'receipt.pdf');
  const png = path.join(dir, 'photo.PNG');
  const exe = path.join(dir, 'tool.exe');
  const big = path.join(dir, 'big.pdf');
  fs.writeFileSync(pdf, '%PDF-1.4');
  fs.writeFileSync(png, 'png');
  fs.writeFileSync(exe, 'MZ');
  fs.writeFileSync(big, Buffer.alloc(2 * 1024 * 1024));
  const agent = { interface: { input: { schema: {}, examples: [], file_fields: { receipt: { multiple: false, accept: ['image/*', '.pdf'], max_size_mb: 1 }, scans: { multiple: true } } } } } as unknown as CompiledAgent;

  it('matches accept entries by extension and MIME family', () => {
    expect(accepts(['image/*'], 'a.PNG')).toBe(true);
    expect(accepts(['image/*'], 'a.pdf')).toBe(false);
    expect(accepts(['.pdf'], 'A.PDF')).toBe(true);
    expect(accepts(['video/mp4'], 'a.mp4')).toBe(true);
    expect(accepts(['video/mp4'], 'a.mov')).toBe(false);
  });

  it('accepts files that fit and refuses type, size, missing and shape problems', () => {
    expect(fileInputErrors(agent, { receipt: pdf, scans: [png] })).toEqual([]);
    expect(fileInputErrors(agent, { receipt: png })).toEqual([]);
    expect(fileInputErrors(agent, { receipt: exe })).toEqual([`/receipt "${exe}" is of an unknown type (.exe); this field accepts image/*, .pdf`]);
    expect(fileInputErrors(agent, { receipt: big })).toEqual([`/receipt "${big}" is 2.0 MB; the limit is 1 MB per file`]);
    expect(fileInputErrors(agent, { receipt: path.join(dir, 'nope.pdf') })[0]).toMatch(/does not exist/);
    expect(fileInputErrors(agent, { scans: pdf })).toEqual(['/scans must be a list of file paths (widget file-multi)']);
    // no max_size_mb: the platform limit applies
    expect(fileInputErrors(agent, { scans: [big] }, dir, { LOOM_MAX_UPLOAD_MB: '1' })).toEqual([`/scans/0 "${big}" is 2.0 MB; the limit is 1 MB per file (platform default, LOOM_MAX_UPLOAD_MB)`]);
  });

  it('loom run refuses a file outside accept before anything starts', () => {
    const reg = registryWith('support-ui', uiAgent('support-ui'));
    const r = spawnSync('node', [loom, 'run', 'support-ui', '--registry', reg, '--input', JSON.stringify({ question: 'refund?', receipt: exe })], { env: { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(r.status).toBe(1);
    expect(r.stderr.toString()).toContain(`input refused by support-ui's file fields (ui.ui_hints accept / max_size_mb):\n  /receipt "${exe}" is of an unknown type (.exe); this field accepts image/*, .pdf`);
  }, 60_000);

  it('BCP 47 tags', () => {
    for (const t of ['en', 'fr', 'pt-BR', 'zh-Hant-TW', 'es-419', 'sr-Latn']) expect(isBcp47(t)).toBe(true);
    for (const t of ['en_US', 'e', 'fr-', '123', 'en-US-']) expect(isBcp47(t)).toBe(false);
  });
});
