/**
 * docker-compose.yml's store wiring, checked as data (no Docker engine here): the worker and the
 * CLI name the same PostgreSQL store, its database is created before either starts, the URL
 * parses as a postgres store on the compose database, and the host CLI can reach the database.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { parseStoreUrl } from '../../src/store';

type Service = { environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; entrypoint?: string[]; command?: string[]; ports?: string[]; profiles?: string[] };
const text = fs.readFileSync(path.join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
const dc = parse(text) as { services: Record<string, Service> };

test('the worker and the CLI share one PostgreSQL store, created before they start', () => {
  const { worker, cli, postgresql } = dc.services;
  const url = worker.environment?.LOOM_STORE_URL;
  expect(url).toBeDefined();
  expect(cli.environment?.LOOM_STORE_URL).toBe(url);
  expect(worker.environment?.LOOM_STORE_DIR).toBeUndefined();
  const loc = parseStoreUrl(url!);
  expect(loc).toMatchObject({ kind: 'postgres', host: 'postgresql', port: 5432, database: 'loomstore', user: postgresql.environment?.POSTGRES_USER });
  for (const s of [worker, cli]) expect(s.depends_on?.['store-db-init']).toEqual({ condition: 'service_completed_successfully' });
  expect([...dc.services['store-db-init'].entrypoint!, ...dc.services['store-db-init'].command!].join(' ')).toContain('CREATE DATABASE loomstore');
  expect(postgresql.ports).toContain('5432:5432');
  expect(cli.profiles).toEqual(['cli']);
});

test('encryption: worker, CLI and codec server name the same key; the Web UI calls the codec server, which allows its origin', () => {
  const { worker, cli, 'temporal-ui': ui } = dc.services;
  const codec = dc.services['codec-server'];
  // The same variable on every side (compose substitutes it from the host's environment).
  expect(worker.environment?.LOOM_CODEC_KEY).toBe('${LOOM_CODEC_KEY:-}');
  expect(cli.environment?.LOOM_CODEC_KEY).toBe('${LOOM_CODEC_KEY:-}');
  // Not mandatory (`docker compose config` must pass with no variable set): without a key the codec server exits saying so.
  expect(codec.environment?.LOOM_CODEC_KEY).toBe('${LOOM_CODEC_KEY:-}');
  expect(codec.profiles).toEqual(['encryption']);
  const args = codec.entrypoint!;
  expect(args.slice(0, 3)).toEqual(['node', 'dist/client.js', 'codec-server']);
  const port = args[args.indexOf('--port') + 1];
  const origins = args[args.indexOf('--origins') + 1].split(',');
  // Published on the host's loopback only: the browser reaches it, the network does not.
  expect(codec.ports).toEqual([`127.0.0.1:${port}:${port}`]);
  // The Web UI calls it when the operator names it (no endpoint when no codec server runs), as the file's header says.
  expect(ui.environment?.TEMPORAL_CODEC_ENDPOINT).toBe('${TEMPORAL_CODEC_ENDPOINT:-}');
  expect(text).toContain(`TEMPORAL_CODEC_ENDPOINT=http://localhost:${port}`);
  const uiPort = ui.ports![0].split(':')[0];
  expect(origins).toContain(`http://localhost:${uiPort}`);
});
