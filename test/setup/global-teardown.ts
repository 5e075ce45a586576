import * as fs from 'fs';

export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as any).__LOOM_DEV_SERVER__;
  if (server) await server.stop();
  const dir = process.env.LOOM_TEST_DIR;
  if (dir && !process.env.LOOM_KEEP_TEST_DIR) fs.rmSync(dir, { recursive: true, force: true });
}
