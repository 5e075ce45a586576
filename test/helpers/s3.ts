/**
 * A private S3-compatible server for a test: gofakes3 (scripts/install-s3-server.sh builds it into
 * .tools/s3 on first use, LOOM_S3_SERVER_PATH overrides) with its filesystem backend in a temp dir,
 * on a free 127.0.0.1 port. `bucket(name)` creates a bucket through the S3 API; `urlFor` gives the
 * LOOM_STORE_URL. gofakes3 does not check request signatures (test/store/s3-signing.unit.test.ts
 * checks what the client sends instead). The test credentials are set in process.env (the SDK's
 * standard variables) unless already set.
 */
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from './postgres';
import { until } from './wait';

export interface TestS3 {
  endpoint: string;
  /** Create a bucket (idempotent); returns its name. */
  bucket(name: string): Promise<string>;
  /** `s3://bucket/prefix?endpoint=…&region=us-east-1`. */
  urlFor(bucket: string, prefix?: string): string;
  /** A client of the server with the test credentials (to list what a store wrote). */
  client: S3Client;
  stop(): Promise<void>;
}

export const TEST_S3_KEY_ID = 'loomtestkey';
export const TEST_S3_SECRET = 'loom-test-secret-value';

/** The gofakes3 binary, installed when missing (the install's stderr goes to the test's). */
export function s3ServerPath(): string {
  const root = path.resolve(__dirname, '..', '..');
  return execFileSync('bash', [path.join(root, 'scripts', 'install-s3-server.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: process.env }).trim();
}

/** A TCP connection to the port succeeds: gofakes3 is listening. */
function listening(port: number): Promise<true> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', (e) => {
      sock.destroy();
      reject(e);
    });
  });
}

async function waitForPort(port: number, proc: ChildProcess, log: () => string, timeoutMs = 20_000): Promise<void> {
  await until(async () => {
    if (proc.exitCode !== null) throw new Error(`gofakes3 exited with ${proc.exitCode}: ${log()}`);
    return listening(port).catch(() => undefined);
  }, () => `gofakes3 to listen on 127.0.0.1:${port}: ${log()}`, timeoutMs);
}

export async function startTestS3(prefix = 'loom-s3'): Promise<TestS3> {
  process.env.AWS_ACCESS_KEY_ID ??= TEST_S3_KEY_ID;
  process.env.AWS_SECRET_ACCESS_KEY ??= TEST_S3_SECRET;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // as src/store/s3.ts does
  const bin = s3ServerPath();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const port = await freePort();
  let out = '';
  const proc = spawn(bin, ['-backend', 'fs', '-fs.path', path.join(dir, 'data'), '-fs.create', '-host', `127.0.0.1:${port}`, '-quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout?.on('data', (d) => (out = (out + d).slice(-4000)));
  proc.stderr?.on('data', (d) => (out = (out + d).slice(-4000)));
  await waitForPort(port, proc, () => out);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: TEST_S3_KEY_ID, secretAccessKey: TEST_S3_SECRET },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const made = new Set<string>();
  return {
    endpoint,
    client,
    async bucket(name) {
      if (!made.has(name)) {
        await client.send(new CreateBucketCommand({ Bucket: name })).catch((e: Error) => {
          if (e.name !== 'BucketAlreadyOwnedByYou' && e.name !== 'BucketAlreadyExists') throw e;
        });
        made.add(name);
      }
      return name;
    },
    urlFor(bucket, pfx = '') {
      return `s3://${bucket}/${pfx}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`;
    },
    async stop() {
      client.destroy();
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
