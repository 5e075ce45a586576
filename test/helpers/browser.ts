/**
 * A real headless Chromium driven by playwright-core, for tests that check what the Temporal Web UI
 * shows. No browser download and no system package: the Chromium of the npm package
 * `@sparticuz/chromium` (a headless build shipped brotli-packed inside the package, unpacked once to
 * the temp dir by its `executablePath()`). On Debian it needs only libnss3 and libnspr4 beside glibc
 * (its bundled libraries are for Amazon Linux and are unpacked only there).
 * LOOM_CHROMIUM_PATH names another Chromium instead — the documented fallback where those two
 * libraries are missing: `apt-get install -y chromium` and LOOM_CHROMIUM_PATH=/usr/bin/chromium.
 */
import type { Browser } from 'playwright-core';

export async function chromiumPath(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.LOOM_CHROMIUM_PATH) return env.LOOM_CHROMIUM_PATH;
  const { default: Chromium } = await import('@sparticuz/chromium');
  return Chromium.executablePath();
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const executablePath = await chromiumPath();
  // Our own flags, not @sparticuz/chromium's serverless set (that one turns web security off, which
  // would hide a CORS mistake of the codec endpoint). --no-sandbox: CI runs as root, where Chromium's
  // sandbox refuses to start.
  try {
    return await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  } catch (e) {
    throw new Error(
      `Chromium (${executablePath}) did not start: ${(e as Error).message.split('\n').slice(0, 6).join('\n')}\n` +
        'On Debian it needs libnss3 and libnspr4 (apt-get install -y libnss3); or install a Chromium (apt-get install -y chromium) and set LOOM_CHROMIUM_PATH=/usr/bin/chromium',
    );
  }
}
