/**
 * The pure parts of the llm and http guardrail providers (src/activities/guardrail-remote.ts) and
 * the chain driving asynchronous providers: how a judge's reply becomes a score, what the judge is
 * asked per check, how analyzer spans (Unicode code points) are replaced, and which provider
 * failures are retried, refused, or turned into warnings.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { ApplicationFailure } from '@temporalio/common';
import { httpGuard, judgeInstructions, llmJudge, parseJudgeReply, replaceEntities } from '../../src/activities/guardrail-remote';
import type { ProviderRequest } from '../../src/activities/provider';
import { evaluateGuardrailsAsync } from '../../src/activities/guardrails';
import type { CompiledAgent, CompiledGuardrail, JsonObject } from '../../src/compiled/types';

describe('the llm judge', () => {
  test('a reply is read as {score, reason}: bare, fenced, inside prose, a numeric string; clamped to 0-10', () => {
    expect(parseJudgeReply('{"score": 8, "reason": "override attempt"}', 'jb')).toEqual({ score: 8, reason: 'override attempt' });
    expect(parseJudgeReply('```json\n{"score": 0}\n```', 'jb')).toEqual({ score: 0 });
    expect(parseJudgeReply('Verdict: {"score": "6.6", "reason": "x"} done', 'jb')).toEqual({ score: 7, reason: 'x' });
    expect(parseJudgeReply('{"score": 42}', 'jb').score).toBe(10);
    expect(parseJudgeReply('{"score": -3}', 'jb').score).toBe(0);
  });
  test('a reply without a numeric score is a non-retryable failure naming the guardrail and quoting the reply', () => {
    for (const reply of ['Looks fine!', '{"verdict": "ok"}', '{"score": "high"}', '{score: 3']) {
      let err: unknown;
      try {
        parseJudgeReply(reply, 'jb');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect((err as ApplicationFailure).nonRetryable).toBe(true);
      expect((err as ApplicationFailure).message).toContain(`the judge model of guardrail 'jb' did not answer`);
      expect((err as ApplicationFailure).message).toContain(JSON.stringify(reply));
    }
  });
  test('what the judge is asked names the check and its lists; hallucination asks the grounding question', () => {
    expect(judgeInstructions({ check: 'jailbreak' })).toMatch(/jailbreak an AI assistant/);
    expect(judgeInstructions({ check: 'language', languages: ['en', 'fr'] })).toMatch(/one of these languages: en, fr/);
    expect(judgeInstructions({ check: 'topic', topics: ['billing', 'refunds'] })).toMatch(/one of these topics: billing, refunds/);
    expect(judgeInstructions({ check: 'hallucination' })).toBe(judgeInstructions({ check: 'grounding' }));
    expect(judgeInstructions({ check: 'jailbreak', instructions: 'Role play is allowed.' })).toMatch(/\nRole play is allowed\.$/);
    expect(judgeInstructions({ check: 'jailbreak' })).toMatch(/\{"score": <integer 0-10/);
  });
});

describe('analyzer entities', () => {
  test('spans count code points (an emoji before a name); overlapping spans: the earlier, then longer, wins', () => {
    const text = '😀 Jane Doe jane@x.io';
    expect(replaceEntities(text, [{ entity_type: 'PERSON', start: 2, end: 10, score: 0.9 }, { entity_type: 'EMAIL_ADDRESS', start: 11, end: 20, score: 1 }])).toBe('😀 [PERSON] [EMAIL_ADDRESS]');
    expect(replaceEntities('Jane Doe', [{ entity_type: 'FIRST', start: 0, end: 4, score: 1 }, { entity_type: 'PERSON', start: 0, end: 8, score: 1 }, { entity_type: 'LAST', start: 5, end: 8, score: 1 }])).toBe('[PERSON]');
    expect(replaceEntities('nothing', [])).toBe('nothing');
  });
});

describe('the chain with asynchronous providers', () => {
  const g = (over: Partial<CompiledGuardrail> = {}): CompiledGuardrail => ({ ref: 'remote', version: '1', status: 'active', result_type: 'score', provider: { type: 'http', config: { url: 'http://x' } }, severity_threshold: 5, on_fail: 'block', ...over });

  test('a score from a remote provider blocks, warns or passes as a builtin score does', async () => {
    const ev = async () => ({ score: 9, failed: true, findings: ['EMAIL_ADDRESS'] });
    expect(await evaluateGuardrailsAsync([g()], 'x', 'input', ev)).toMatchObject({ kind: 'blocked', guardrail: 'remote', reason: 'score 9 >= severity_threshold 5 (EMAIL_ADDRESS)' });
    expect(await evaluateGuardrailsAsync([g({ on_fail: 'warn' })], 'x', 'input', ev)).toMatchObject({ kind: 'warn' });
    expect(await evaluateGuardrailsAsync([g({ severity_threshold: 10 })], 'x', 'input', ev)).toMatchObject({ kind: 'pass' });
  });
  test('a transform from a remote provider replaces the text the next guardrail sees', async () => {
    const seen: unknown[] = [];
    const out = await evaluateGuardrailsAsync([g({ ref: 'a', result_type: 'transform', on_fail: 'apply' }), g({ ref: 'b' })], 'mail jane@x.io', 'input', async (x, subject) => {
      seen.push(subject);
      return x.ref === 'a' ? { score: 10, failed: true, findings: [], transformed: 'mail [EMAIL_ADDRESS]' } : { score: 0, failed: false, findings: [] };
    });
    expect(seen).toEqual(['mail jane@x.io', 'mail [EMAIL_ADDRESS]']);
    expect(out).toMatchObject({ kind: 'transformed', subject: 'mail [EMAIL_ADDRESS]' });
  });
  test('a retryable failure (a service down) goes up unchanged; a refusal becomes GuardrailConfigError; annotate guardrails skip', async () => {
    const down = ApplicationFailure.retryable('HTTP 503', 'GuardrailServiceUnavailable');
    await expect(evaluateGuardrailsAsync([g()], 'x', 'input', async () => { throw down; })).rejects.toBe(down);
    const refused = ApplicationFailure.nonRetryable('blocked by policy', 'GuardrailPolicyBlocked');
    await expect(evaluateGuardrailsAsync([g()], 'x', 'input', async () => { throw refused; })).rejects.toMatchObject({ type: 'GuardrailConfigError', message: "guardrail 'remote' (http): blocked by policy" });
    const skipped = await evaluateGuardrailsAsync([g({ result_type: 'annotate', on_fail: 'skip' })], 'x', 'input', async () => { throw down; });
    expect(skipped).toMatchObject({ kind: 'warn', warnings: ["input guardrail 'remote' skipped: HTTP 503"] });
  });
});

describe('the http provider against a local moderation endpoint (127.0.0.1)', () => {
  let server: http.Server;
  let base: string;
  let status = 200;
  const seen: { body: unknown; auth?: string }[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string };
        seen.push({ body, auth: req.headers.authorization });
        res.statusCode = status;
        const hate = /hate/.test(body.input);
        res.end(JSON.stringify({ results: [{ flagged: hate, categories: { hate, violence: false }, category_scores: { hate: hate ? 0.92 : 0.01, violence: 0.02 } }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/moderate`;
  });
  afterAll(async () => new Promise((r) => server.close(r)));

  const agent = { policies: { allow_external_http: false }, tenant: { tenant_id: 't', secrets: { 'mod-key': { env: 'MOD_KEY' } } } } as unknown as CompiledAgent;
  const guard = (config: JsonObject): CompiledGuardrail => ({ ref: 'mod', version: '1', status: 'active', result_type: 'score', provider: { type: 'http', credentials_ref: 'mod-key', config: { url: base, format: 'moderation', ...config } }, on_fail: 'block' });
  const allowed = { allowed_hosts: ['127.0.0.1'], allow_private_network: true };

  test('flagged categories and the highest category score; the bearer token from the secret store', async () => {
    expect(await httpGuard(guard(allowed), 'I hate you', { agent, env: { MOD_KEY: 'k-123' } })).toEqual({ score: 9, failed: true, findings: ['hate'] });
    expect(await httpGuard(guard(allowed), 'hello', { agent, env: { MOD_KEY: 'k-123' } })).toEqual({ score: 0, failed: false, findings: [] });
    expect(seen.slice(-2)).toEqual([{ body: { input: 'I hate you' }, auth: 'Bearer k-123' }, { body: { input: 'hello' }, auth: 'Bearer k-123' }]);
  });
  test('a loopback address needs allow_private_network even when the host is allowed', async () => {
    const n = seen.length;
    await expect(httpGuard(guard({ allowed_hosts: ['127.0.0.1'] }), 'x', { agent, env: { MOD_KEY: 'k' } })).rejects.toThrow(/resolves to 127.0.0.1 \(loopback\)/);
    expect(seen.length).toBe(n);
  });
  test('HTTP 503 is retryable; HTTP 400 is not; a missing secret names the ref', async () => {
    status = 503;
    await expect(httpGuard(guard(allowed), 'x', { agent, env: { MOD_KEY: 'k' } })).rejects.toMatchObject({ nonRetryable: false, type: 'GuardrailServiceUnavailable' });
    status = 400;
    await expect(httpGuard(guard(allowed), 'x', { agent, env: { MOD_KEY: 'k' } })).rejects.toMatchObject({ nonRetryable: true, message: expect.stringMatching(/HTTP 400/) });
    status = 200;
    await expect(httpGuard(guard(allowed), 'x', { agent, env: {} })).rejects.toThrow('credentials_ref `mod-key`: the environment variable MOD_KEY is not set on this worker');
  });
});

describe('the llm provider call', () => {
  const judged = (pii: boolean) => ({ policies: { pii_redaction: pii } }) as unknown as CompiledAgent;
  const g: CompiledGuardrail = {
    ref: 'ground', version: '1', status: 'active', result_type: 'score', on_fail: 'block',
    provider: { type: 'llm', config: { model: 'judge', check: 'hallucination' }, model: { model_id: 'judge', provider: 'fake' } } as CompiledGuardrail['provider'],
  };
  test('the judge gets the text and the sources (grounding), no tools; under pii_redaction both and its reason are redacted', async () => {
    const asked: ProviderRequest[] = [];
    const models = { fake: async (req: ProviderRequest) => (asked.push(req), { content: '{"score": 8, "reason": "jane@example.com is not in the sources"}', usage: { prompt_tokens: 1, completion_tokens: 1 } }) };
    const sources = async () => ['Contact: support@acme.test'];
    const plain = await llmJudge(g, 'Write to jane@example.com', { agent: judged(false), models, sources });
    expect(plain).toEqual({ score: 8, failed: true, findings: ['hallucination judge (judge): score 8, jane@example.com is not in the sources'] });
    expect(asked[0]).toMatchObject({ tools: [], prefs: { tool_choice: 'none' }, conversation: [{ role: 'user', content: 'TEXT:\nWrite to jane@example.com\n\nSOURCES:\n[1] Contact: support@acme.test' }] });
    const redacted = await llmJudge(g, 'Write to jane@example.com', { agent: judged(true), models, sources });
    expect(asked[1].conversation[0].content).toBe('TEXT:\nWrite to [EMAIL]\n\nSOURCES:\n[1] Contact: [EMAIL]');
    expect(redacted.findings).toEqual(['hallucination judge (judge): score 8, [EMAIL] is not in the sources']);
  });
  test('a judge whose provider the worker lacks is UnknownGuardrailProvider; a guardrail compiled without its model says to recompile', async () => {
    await expect(llmJudge(g, 'x', { agent: judged(false), models: {}, sources: async () => [] })).rejects.toMatchObject({ type: 'UnknownGuardrailProvider', message: expect.stringMatching(/model provider 'fake' \(judge model judge\) is not available/) });
    const bare = { ...g, provider: { type: 'llm', config: { model: 'judge', check: 'jailbreak' } } };
    await expect(llmJudge(bare, 'x', { agent: judged(false), models: {}, sources: async () => [] })).rejects.toThrow(/without a compiled judge model \(recompile/);
  });
});
