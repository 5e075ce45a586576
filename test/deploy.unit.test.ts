/**
 * docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so their wiring is
 * checked as data: what `docker compose config` does (interpolate every variable, then validate
 * against the Compose Specification's JSON Schema, a copy in test/fixtures/compose), plus the rules
 * a compose file that starts needs: no mandatory variable, healthchecks that dependants wait for,
 * one-shot jobs that fail loudly, a worker that restarts, codec settings only with the codec server.
 * The Dockerfile's build steps themselves run in test/deploy.test.ts.
 */
import * as fs from 'fs';
import * as path from 'path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../src/shared/contract';

const ROOT = path.resolve(__dirname, '..');
const COMPOSE_TEXT = fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');

interface Service {
  image?: string;
  build?: string;
  profiles?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  restart?: string;
  entrypoint?: string[];
  command?: string[] | string;
}

/**
 * Compose's variable interpolation (compose-spec "Interpolation"), as `docker compose config` applies
 * it to every string value before profiles are considered: `$$` is a literal `$`; `${VAR:-default}` /
 * `${VAR-default}` fall back; `${VAR:?err}` / `${VAR?err}` fail when unset ("Missing mandatory value");
 * a bare `${VAR}` / `$VAR` becomes "" with a warning. `unset` collects the variables used with no default.
 */
function interpolate(text: string, env: Record<string, string | undefined>, unset: string[] = []): string {
  return text.replace(/\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_m, dollar, braced, op, arg, bare) => {
    if (dollar) return '$';
    const name = (braced ?? bare) as string;
    const value = env[name];
    const isSet = op?.startsWith(':') ? !!value : value !== undefined;
    switch (op) {
      case ':-':
      case '-':
        return isSet ? value! : arg;
      case ':?':
      case '?':
        if (!isSet) throw new Error(`Missing mandatory value for "${name}": ${arg}`);
        return value!;
      case ':+':
      case '+':
        return isSet ? arg : '';
      default:
        if (value === undefined) unset.push(name);
        return value ?? '';
    }
  });
}

function interpolateValues(v: unknown, env: Record<string, string | undefined>, unset: string[]): unknown {
  if (typeof v === 'string') return interpolate(v, env, unset);
  if (Array.isArray(v)) return v.map((x) => interpolateValues(x, env, unset));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, interpolateValues(x, env, unset)]));
  return v;
}

/** `docker compose config` with no variable set: the interpolated file, or the error compose exits 1 with. */
function composeConfig(text: string): { config: { services: Record<string, Service> }; unset: string[] } {
  const unset: string[] = [];
  const config = interpolateValues(parse(text), {}, unset) as { services: Record<string, Service> };
  return { config, unset };
}

const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/compose/compose-spec.json'), 'utf8'));
delete schema.$schema; // "https://json-schema.org/draft-07/schema": Ajv's default draft, named by another URL
const validateCompose = new Ajv({ strict: false, allErrors: true }).compile(schema);

const { config, unset } = composeConfig(COMPOSE_TEXT);
const services = config.services;
const dependsOn = (s: Service): Record<string, { condition: string }> => (Array.isArray(s.depends_on) ? Object.fromEntries(s.depends_on.map((d) => [d, { condition: 'service_started' }])) : s.depends_on ?? {});
const script = (s: Service): string => [...(s.entrypoint ?? []), ...(Array.isArray(s.command) ? s.command : s.command ? [s.command] : [])].join(' ');

describe('docker-compose.yml', () => {
  test('`docker compose config` with no variable set: every variable has a default, and the result is valid against the Compose Specification schema', () => {
    expect(unset).toEqual([]);
    const ok = validateCompose(config);
    expect(validateCompose.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  test('the checks can fail: the mandatory variable of the old codec service, an unknown key, a bare variable', () => {
    expect(() => composeConfig('services:\n  c:\n    image: x\n    environment:\n      K: ${LOOM_CODEC_KEY:?set it}\n')).toThrow(/Missing mandatory value for "LOOM_CODEC_KEY"/);
    expect(composeConfig('services:\n  c:\n    image: x:$TAG\n').unset).toEqual(['TAG']);
    expect(validateCompose({ services: { c: { image: 'x', restart_policy: 'always' } } })).toBe(false);
    expect(interpolate('$$a ${B:-b} ${C-c} ${D:+d}', { D: '1' })).toBe('$a b c d');
  });

  test('Temporal from its current images (server + admin-tools jobs, no auto-setup), on PostgreSQL, the Web UI and the worker wired by TEMPORAL_ADDRESS', () => {
    expect(Object.keys(services).sort()).toEqual(['cli', 'codec-server', 'postgresql', 'store-db-init', 'temporal', 'temporal-schema', 'temporal-setup', 'temporal-ui', 'worker']);
    expect(services.temporal.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    for (const s of ['temporal-schema', 'temporal-setup']) expect(services[s].image).toMatch(/^temporalio\/admin-tools:\d+\.\d+\.\d+$/);
    expect(COMPOSE_TEXT).not.toMatch(/temporalio\/auto-setup/);
    expect(services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
    for (const s of ['worker', 'temporal-ui', 'temporal-setup', 'cli']) expect(services[s].environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(services.worker.build).toBe('.');
    expect(script(services['temporal-schema'])).toMatch(/update-schema/);
  });

  test('start order: healthchecks where others wait for health, one-shot jobs waited for to succeed, never just "started"', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(dependsOn(s))) {
        expect([name, dep, condition]).not.toEqual([name, dep, 'service_started']);
        expect(services[dep]).toBeDefined();
        if (condition === 'service_healthy') expect([dep, services[dep].healthcheck?.test?.length ?? 0]).not.toEqual([dep, 0]);
        if (condition === 'service_completed_successfully') expect([dep, services[dep].restart]).toEqual([dep, undefined]);
      }
    }
    expect(dependsOn(services.temporal)['temporal-schema'].condition).toBe('service_completed_successfully');
    expect(dependsOn(services.worker)).toMatchObject({ temporal: { condition: 'service_healthy' }, 'temporal-setup': { condition: 'service_completed_successfully' }, 'store-db-init': { condition: 'service_completed_successfully' } });
    expect(dependsOn(services['temporal-ui']).temporal.condition).toBe('service_healthy');
    expect(services.worker.restart).toBe('unless-stopped');
  });

  test('the search attributes are created by a one-shot job that fails loudly: set -e, no `|| true`, no fixed sleep before it starts', () => {
    const setup = services['temporal-setup'];
    const sh = script(setup);
    expect(setup.entrypoint?.[1]).toMatch(/^-e/);
    expect(sh).not.toMatch(/\|\|\s*true/);
    expect(sh).not.toMatch(/^\s*sleep \d+;/);
    expect(sh).toMatch(/temporal operator cluster health/);
    expect(sh).toMatch(/search-attribute create[^\n]*--type Keyword/);
    expect((setup.environment?.LOOM_SEARCH_ATTRIBUTES ?? '').split(/\s+/).sort()).toEqual(Object.values(SEARCH_ATTRIBUTES).sort());
    for (const job of ['temporal-schema', 'store-db-init']) expect(services[job].entrypoint?.[1]).toMatch(/^-e/);
  });

  test('codec settings only with the codec server: no codec endpoint unless one is named, the codec server only in its profile', () => {
    expect(services['codec-server'].profiles).toEqual(['encryption']);
    expect(services['temporal-ui'].environment?.TEMPORAL_CODEC_ENDPOINT).toBe('');
    const withEndpoint = interpolateValues(parse(COMPOSE_TEXT), { TEMPORAL_CODEC_ENDPOINT: 'http://localhost:8888' }, []) as typeof config;
    expect(withEndpoint.services['temporal-ui'].environment?.TEMPORAL_CODEC_ENDPOINT).toBe('http://localhost:8888');
    for (const [name, s] of Object.entries(services)) {
      if (name !== 'temporal-ui') expect([name, s.environment?.TEMPORAL_CODEC_ENDPOINT]).toEqual([name, undefined]);
    }
    // No secret values in the compose file: only env names.
    expect(COMPOSE_TEXT).not.toMatch(/sk-[A-Za-z0-9]{10,}/);
  });
});

describe('Dockerfile and its build context', () => {
  test('builds the prebuilt workflow bundle and starts dist/worker.js with it', () => {
    const df = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(df).toMatch(/scripts\/build-bundle\.ts/);
    expect(df).toMatch(/LOOM_WORKFLOW_BUNDLE=\/app\/dist\/workflow-bundle\.js/);
    expect(df).toMatch(/CMD \["node", "dist\/worker\.js"\]/);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.scripts['build:bundle']).toMatch(/scripts\/build-bundle\.ts/);
    expect(fs.existsSync(path.join(ROOT, 'scripts', 'build-bundle.ts'))).toBe(true);
  });

  test('.dockerignore keeps installed packages, local tools, run state, git history and env files out of `COPY . .`', () => {
    const entries = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    for (const e of ['.git', 'node_modules', '.tools', '.loom', 'dist', '.env']) expect(entries).toContain(e);
  });
});
