/**
 * The `loom` CLI as the published package ships it (bin/loom.js over the tsc-built dist/), for the
 * test files that start the CLI dozens of times. From source each start compiles client.ts and what
 * it loads through ts-node; the built CLI only loads JavaScript, several times faster a start.
 *
 * It is the shared pack's build (test/library/pack.ts: `npm pack`, whose prepack builds dist/ from
 * this checkout's sources), unpacked once per pack into a folder of the system's temp folder
 * (test/helpers/once.ts), its dependencies this checkout's node_modules and its Temporal CLI this
 * checkout's .tools (links, where an install would put them). The pack is keyed by a hash of every shipped source, so the built CLI is
 * always the current sources' build: an edit packs and unpacks again.
 */
import { execFile } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { once } from './once';
import { sharedPack } from '../library/pack';

const ROOT = path.resolve(__dirname, '..', '..');
/** How long a waiting file gives the one packing and unpacking (the pack alone took 150 s on a loaded 2-core machine). */
const WAIT_MS = 600_000;

/** The path of the built package's bin/loom.js (packing and unpacking it first if no file has yet). */
export async function builtLoomBin(): Promise<string> {
  const pack = await sharedPack();
  // One unpacked copy per pack and per checkout: its node_modules and .tools are links into the
  // checkout that unpacked it, which may be gone (a removed clone or worktree) when another asks.
  const checkout = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
  const dir = path.join(os.tmpdir(), 'agentloom-cli', `${path.basename(path.dirname(pack.tarball))}-${checkout}`);
  const { value } = await once<string>({
    result: `${dir}.json`,
    produce: async () => {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      await promisify(execFile)('tar', ['xzf', pack.tarball, '-C', dir]);
      const pkg = path.join(dir, 'package');
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
      // The Temporal CLI the suite installed (`loom dev` and an embedded `loom run` start it), as `npm run temporal:install` would put it there.
      if (fs.existsSync(path.join(ROOT, '.tools'))) fs.symlinkSync(path.join(ROOT, '.tools'), path.join(pkg, '.tools'), 'dir');
      return JSON.stringify(path.join(pkg, 'bin', 'loom.js'));
    },
    // A temp cleaner may have removed it since: then it is unpacked again.
    read: (content) => {
      const bin = JSON.parse(content) as string;
      return fs.existsSync(bin) && fs.existsSync(path.join(path.dirname(bin), '..', 'dist', 'client.js')) ? bin : undefined;
    },
    what: 'the built loom CLI (another test file may be packing or unpacking it)',
    waitMs: WAIT_MS,
  });
  return value;
}

/**
 * The built package's production worker (dist/worker.js, worker.ts as the package ships it), from
 * the same unpacked build as builtLoomBin: it loads only JavaScript, where worker.ts through
 * ts-node compiles every module it loads at each start.
 */
export async function builtWorkerJs(): Promise<string> {
  return path.join(path.dirname(await builtLoomBin()), '..', 'dist', 'worker.js');
}
