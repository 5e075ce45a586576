/**
 * `npm run bench:store`: put/get latency and throughput of the three store backends in one run —
 * the folder (the baseline), PostgreSQL (a private server started like the tests do, or the
 * database in BENCH_STORE_URL) and S3 (a private gofakes3 on 127.0.0.1 started like the tests do,
 * or the bucket in BENCH_S3_URL with the AWS_* credentials of the environment) — for 1 KB, 64 KB and 1 MB blobs, sequential (latency p50/p95) and
 * 16 in flight (ops/s and MB/s), plus a 100-message conversation appended and read back cold
 * through the MessageStore (what model turns do). Prints a Markdown table with the load average.
 * BENCH_STORE_N (default 200) sets the operations per row.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { createHash, randomBytes } from 'crypto';
import { BlobStore, FileBlobStore, PostgresBlobStore, S3BlobStore, parseStoreUrl } from '../src/store';
import { MessageStore } from '../src/activities/message-store';
import type { BlobRef } from '../src/shared/contract';
import { startTestPostgres, TestPostgres } from '../test/helpers/postgres';
import { startTestS3, TestS3 } from '../test/helpers/s3';

const N = Number(process.env.BENCH_STORE_N ?? 200);
const SIZES: [string, number][] = [['1 KB', 1024], ['64 KB', 64 * 1024], ['1 MB', 1024 * 1024]];
const IN_FLIGHT = 16;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function inFlight(items: Buffer[], fn: (b: Buffer) => Promise<unknown>): Promise<number> {
  let next = 0;
  return timed(() =>
    Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < items.length) await fn(items[next++]);
    })),
  );
}

interface Row { backend: string; op: string; size: string; p50: number; p95: number; opsPerS: number; mbPerS: number; load: number }

async function benchBackend(name: string, store: BlobStore): Promise<Row[]> {
  const rows: Row[] = [];
  await store.put('warm-up'); // connection + tables
  for (const [label, size] of SIZES) {
    const n = size >= 1024 * 1024 ? Math.max(20, Math.floor(N / 4)) : N;
    const seq = Array.from({ length: n }, () => randomBytes(size));
    const par = Array.from({ length: n }, () => randomBytes(size));
    const putLat: number[] = [];
    for (const b of seq) putLat.push(await timed(() => store.put(b)));
    const putParMs = await inFlight(par, (b) => store.put(b));
    const refs = seq.map((b) => ({ hash: 'sha256:' + createHash('sha256').update(b).digest('hex') }));
    const getLat: number[] = [];
    for (const r of refs) getLat.push(await timed(() => store.get(r)));
    let gi = 0;
    const getParMs = await inFlight(par, async () => store.get(refs[gi++ % refs.length]));
    const load = os.loadavg()[0];
    const mb = (n * size) / (1024 * 1024);
    rows.push({ backend: name, op: 'put', size: label, p50: pct(putLat, 50), p95: pct(putLat, 95), opsPerS: n / (putParMs / 1000), mbPerS: mb / (putParMs / 1000), load });
    rows.push({ backend: name, op: 'get', size: label, p50: pct(getLat, 50), p95: pct(getLat, 95), opsPerS: n / (getParMs / 1000), mbPerS: mb / (getParMs / 1000), load });
  }
  // A conversation: 100 appends (each a put after a cached read), then a cold full read.
  const ms = new MessageStore(store);
  let head: BlobRef | null = null;
  const appendLat: number[] = [];
  const tag = randomBytes(4).toString('hex');
  for (let i = 0; i < 100; i++) {
    const h = head;
    appendLat.push(await timed(async () => (head = await ms.append(h, { role: i % 2 ? 'assistant' : 'user', content: `message ${i} of ${tag}: ${'x'.repeat(500)}` }))));
  }
  const cold = new MessageStore(store);
  const readMs = await timed(() => cold.conversation(head));
  const load = os.loadavg()[0];
  rows.push({ backend: name, op: 'message append', size: '~0.6 KB', p50: pct(appendLat, 50), p95: pct(appendLat, 95), opsPerS: 100 / (appendLat.reduce((a, b) => a + b, 0) / 1000), mbPerS: NaN, load });
  rows.push({ backend: name, op: 'cold read of 100 messages', size: '~60 KB', p50: readMs, p95: readMs, opsPerS: 1000 / readMs, mbPerS: NaN, load });
  return rows;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-bench-store-'));
  let pg: TestPostgres | undefined;
  let pgStore: PostgresBlobStore | undefined;
  let s3: TestS3 | undefined;
  let s3Store: S3BlobStore | undefined;
  try {
    let url = process.env.BENCH_STORE_URL;
    if (!url) {
      pg = await startTestPostgres('loom-bench-pg');
      url = await pg.urlFor('loombench');
    }
    const loc = parseStoreUrl(url);
    if (loc.kind !== 'postgres') throw new Error('BENCH_STORE_URL must be a postgres:// URL');
    pgStore = new PostgresBlobStore(loc);
    let s3url = process.env.BENCH_S3_URL;
    if (!s3url) {
      s3 = await startTestS3('loom-bench-s3');
      s3url = s3.urlFor(await s3.bucket('loom-bench'), 'bench');
    }
    const s3loc = parseStoreUrl(s3url);
    if (s3loc.kind !== 's3') throw new Error('BENCH_S3_URL must be an s3:// URL');
    s3Store = new S3BlobStore(s3loc);
    process.stderr.write(`bench:store: folder ${dir} vs ${loc.display} vs ${s3loc.display}${s3 ? ' (gofakes3, filesystem backend)' : ''}, ${N} operations per row, ${IN_FLIGHT} in flight for throughput\n`);
    const rows = [
      ...(await benchBackend('folder', new FileBlobStore(path.join(dir, 'store')))),
      ...(await benchBackend('postgres', pgStore)),
      ...(await benchBackend('s3', s3Store)),
    ];
    const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '—');
    const base = new Map(rows.filter((r) => r.backend === 'folder').map((r) => [`${r.op}|${r.size}`, r]));
    console.log('| backend | operation | size | p50 ms | p95 ms | ops/s (16 in flight) | MB/s | p50 vs folder | load (1 min) |');
    console.log('|---|---|---|---:|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      const b = base.get(`${r.op}|${r.size}`)!;
      console.log(`| ${r.backend} | ${r.op} | ${r.size} | ${f(r.p50, 3)} | ${f(r.p95, 3)} | ${f(r.opsPerS, 0)} | ${f(r.mbPerS, 1)} | ${f(r.p50 / b.p50, 1)}x | ${f(r.load, 1)} |`);
    }
  } finally {
    await pgStore?.close();
    pg?.destroy();
    await s3Store?.close();
    await s3?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench:store: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
