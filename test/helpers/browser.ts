/**
 * A real headless Chromium (Debian's `chromium`) driven by playwright-core, for tests that check
 * what the Temporal Web UI shows. No browser download: LOOM_CHROMIUM_PATH, else `chromium` or
 * `chromium-browser` on PATH; missing, the test fails saying how to install it (`.ci/run` does).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Browser } from 'playwright-core';

export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOOM_CHROMIUM_PATH) return env.LOOM_CHROMIUM_PATH;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      const p = path.join(dir, name);
      if (dir && fs.existsSync(p)) return p;
    }
  }
  throw new Error('no Chromium to check the Temporal Web UI with: install Debian\'s `chromium` (apt-get install -y chromium; .ci/run does) or set LOOM_CHROMIUM_PATH');
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
