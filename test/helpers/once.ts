/**
 * Work that several test files need and that gives the same result for the same inputs (a pack,
 * a workflow bundle): done once, by whichever process asks first, and read by every other
 * process (another jest worker, or a later run when the result's folder outlives the run).
 *
 * The result is a file written whole and then renamed into place, so a reader sees none or all of
 * it. While one process produces it, it holds a lock: a folder made with mkdir, which only one
 * process can create; the others wait for the result. A lock whose process is gone (a killed test
 * run) is taken over. A failure of the work fails the caller that ran it; a waiting caller then
 * takes the lock and tries the work itself.
 */
import * as fs from 'fs';
import * as path from 'path';
import { until } from './wait';

/** Whether the process that took `lock` is gone. */
function lockAbandoned(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8'));
  } catch {
    // Taken but its pid not yet written: only a lock older than a minute is abandoned.
    try {
      return Date.now() - fs.statSync(lock).mtimeMs > 60_000;
    } catch {
      return false;
    }
  }
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export interface OnceOptions<T> {
  /** The result's file: its content is what `produce` returns (a string). */
  result: string;
  /** Runs in the process that holds the lock; returns the result's content. */
  produce: () => Promise<string>;
  /** The result read back; undefined when it no longer holds (e.g. a file it names was removed): then it is produced again. */
  read: (content: string) => T | undefined;
  /** What the wait names when it gives up. */
  what: string;
  /** How long a waiting process gives the producing one (ms). */
  waitMs: number;
}

/** The result of `produce`, produced once across processes (see the file comment). `producedHere` says whether this call ran it. */
export async function once<T>(opts: OnceOptions<T>): Promise<{ value: T; producedHere: boolean }> {
  const lock = `${opts.result}.lock`;
  fs.mkdirSync(path.dirname(opts.result), { recursive: true });
  const done = (): T | undefined => {
    let content: string;
    try {
      content = fs.readFileSync(opts.result, 'utf8');
    } catch {
      return undefined;
    }
    return opts.read(content);
  };
  return until(async () => {
    const found = done();
    if (found !== undefined) return { value: found, producedHere: false };
    try {
      fs.mkdirSync(lock);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (lockAbandoned(lock)) fs.rmSync(lock, { recursive: true, force: true });
      return undefined;
    }
    try {
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      // Another process may have finished between the look above and taking the lock.
      const meanwhile = done();
      if (meanwhile !== undefined) return { value: meanwhile, producedHere: false };
      const content = await opts.produce();
      fs.writeFileSync(`${opts.result}.tmp-${process.pid}`, content);
      fs.renameSync(`${opts.result}.tmp-${process.pid}`, opts.result);
      const value = opts.read(content);
      if (value === undefined) throw new Error(`${opts.what}: the result just produced does not read back`);
      return { value, producedHere: true };
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }, opts.what, opts.waitMs, 500);
}
