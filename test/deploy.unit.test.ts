/**
 * docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so their wiring is
 * checked as data: the services exist, the worker and UI reach Temporal through TEMPORAL_ADDRESS,
 * search attributes are registered, and the image starts the prebuilt worker.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../src/shared/contract';

const ROOT = path.resolve(__dirname, '..');

test('docker-compose.yml: Temporal on PostgreSQL, the Web UI and the worker wired by TEMPORAL_ADDRESS', () => {
  const dc = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, { environment?: Record<string, string>; depends_on?: unknown; build?: string; entrypoint?: string[]; image?: string }> };
  expect(Object.keys(dc.services).sort()).toEqual(['cli', 'codec-server', 'postgresql', 'store-db-init', 'temporal', 'temporal-admin-tools', 'temporal-ui', 'worker']);
  expect(dc.services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
  for (const s of ['worker', 'temporal-ui', 'temporal-admin-tools']) expect(dc.services[s].environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
  expect(dc.services.worker.build).toBe('.');
  const register = dc.services['temporal-admin-tools'].entrypoint!.join(' ');
  for (const sa of Object.values(SEARCH_ATTRIBUTES)) expect(register).toContain(sa);
  // No secret values in the compose file: only env names.
  expect(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')).not.toMatch(/sk-[A-Za-z0-9]{10,}/);
});

test('Dockerfile builds the prebuilt workflow bundle and starts dist/worker.js with it', () => {
  const df = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  expect(df).toMatch(/scripts\/build-bundle\.ts/);
  expect(df).toMatch(/LOOM_WORKFLOW_BUNDLE=\/app\/dist\/workflow-bundle\.js/);
  expect(df).toMatch(/CMD \["node", "dist\/worker\.js"\]/);
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  expect(pkg.scripts['build:bundle']).toMatch(/scripts\/build-bundle\.ts/);
  expect(fs.existsSync(path.join(ROOT, 'scripts', 'build-bundle.ts'))).toBe(true);
});
