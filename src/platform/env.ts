/**
 * The LOOM_* environment read by workers and activities, described once as a zod schema: each
 * variable's type and meaning in one table, and a bad value refused with its name and what to write
 * ("LOOM_MAX_CONCURRENT_ACTIVITIES must be a positive integer, got 'ten'"). An empty value counts as
 * unset. Variables are read when used (tests and embedded workers change them at run time).
 */
import { z } from 'zod';

const unsetIfBlank = (v: unknown): unknown => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const positiveInt = z.preprocess(
  unsetIfBlank,
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a positive integer')
    .transform(Number)
    .refine((n) => n > 0 && Number.isSafeInteger(n), 'must be a positive integer')
    .optional(),
);
const folder = z.preprocess(unsetIfBlank, z.string().optional());
const hostList = z.preprocess(
  unsetIfBlank,
  z
    .string()
    .optional()
    .transform((v) => (v ?? '').split(/[,\s]+/).filter(Boolean)),
);

/** Every LOOM_* variable read outside the CLI, with what it holds. */
export const LOOM_ENV = {
  /** The CLI's state folder; the default home of the blob store and of run workspaces (`.loom` in the current folder). */
  LOOM_HOME: folder,
  /** The store every worker and the CLI share: `file:///folder` or `postgres://user:password@host:port/db` (src/store; checked, password redacted, where it is opened). */
  LOOM_STORE_URL: folder,
  /** A folder for the store when LOOM_STORE_URL is unset (the older setting; default `<LOOM_HOME>/store`). */
  LOOM_STORE_DIR: folder,
  /** Hosts http tools may reach when `policies.allow_external_http: false`: comma- or space-separated, `*.example.com` wildcards. */
  LOOM_INTERNAL_HOSTS: hostList,
  /** Worker slots for activities (default 100). */
  LOOM_MAX_CONCURRENT_ACTIVITIES: positiveInt,
  /** Worker slots for workflow tasks (default 40). */
  LOOM_MAX_CONCURRENT_WORKFLOW_TASKS: positiveInt,
  /** Seconds `loom inbox` waits for each run tree's status query before reporting the tree unanswered (default 5). */
  LOOM_INBOX_QUERY_TIMEOUT_SECONDS: positiveInt,
} as const;

export type LoomEnvName = keyof typeof LOOM_ENV;
export type LoomEnvValue<K extends LoomEnvName> = z.output<(typeof LOOM_ENV)[K]>;

/** One LOOM_* variable, parsed; throws `<NAME> <what to write>, got '<value>'` on a bad value. */
export function loomEnv<K extends LoomEnvName>(name: K, env: NodeJS.ProcessEnv = process.env): LoomEnvValue<K> {
  const r = LOOM_ENV[name].safeParse(env[name]);
  if (!r.success) throw new Error(`${name} ${r.error.issues[0]?.message ?? 'is invalid'}, got '${env[name]}'`);
  return r.data as LoomEnvValue<K>;
}

/** Every problem in the LOOM_* environment at once (empty when all is well): for a worker to check at start. */
export function loomEnvProblems(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  for (const name of Object.keys(LOOM_ENV) as LoomEnvName[]) {
    try {
      loomEnv(name, env);
    } catch (e) {
      out.push((e as Error).message);
    }
  }
  return out;
}

/** A positive-integer LOOM_* setting, undefined when unset (create-worker's worker slots, the inbox's query deadline). */
export function envInt(name: 'LOOM_MAX_CONCURRENT_ACTIVITIES' | 'LOOM_MAX_CONCURRENT_WORKFLOW_TASKS' | 'LOOM_INBOX_QUERY_TIMEOUT_SECONDS', env: NodeJS.ProcessEnv = process.env): number | undefined {
  return loomEnv(name, env);
}
