/**
 * `loom delete` against a recording fake of the Temporal client: every run of the id (a
 * continue-as-new chain) and every run of every member is deleted by run id.
 */
import { WorkflowNotFoundError } from '@temporalio/client';

type Exec = { workflowId: string; runId: string; status: string };

const runs: Exec[] = [];
const deleted: { workflowId: string; runId?: string }[] = [];
const terminated: string[] = [];

jest.mock('../../src/cli/commands/list', () => {
  const actual = jest.requireActual('../../src/cli/commands/list');
  return {
    ...actual,
    orchestrationSession: async () => ({
      address: 'fake',
      close: async () => undefined,
      client: {
        options: { namespace: 'default' },
        workflow: {
          getHandle: (id: string) => ({
            describe: async () => {
              const latest = runs.filter((r) => r.workflowId === id).pop();
              if (!latest) throw new WorkflowNotFoundError('not found', id, undefined);
              return { workflowId: id, runId: latest.runId, status: { name: latest.status } };
            },
            terminate: async () => { terminated.push(id); },
          }),
          list: ({ query }: { query: string }) => {
            const eq = /^WorkflowId = '(.*)'$/.exec(query);
            const prefix = /^WorkflowId STARTS_WITH '(.*)'$/.exec(query);
            const hits = runs.filter((r) => (eq ? r.workflowId === eq[1] : prefix ? r.workflowId.startsWith(prefix[1]) : false));
            return (async function* () { for (const r of [...hits].reverse()) yield { workflowId: r.workflowId, runId: r.runId }; })();
          },
        },
        workflowService: {
          deleteWorkflowExecution: async (req: { workflowExecution: { workflowId: string; runId?: string } }) => { deleted.push(req.workflowExecution); return {}; },
        },
      },
    }),
  };
});

import { run as deleteCmd } from '../../src/cli/commands/delete';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => { out += String(s); return true; });
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => { err += String(s); return true; });
  try {
    return { code: await deleteCmd(argv), out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

beforeEach(() => { runs.length = 0; deleted.length = 0; terminated.length = 0; });

test('every run of a continued-as-new chain and every member run is deleted by run id', async () => {
  runs.push(
    { workflowId: 'loop-1', runId: 'r1', status: 'CONTINUED_AS_NEW' },
    { workflowId: 'loop-1/iter-1-step-1-writer', runId: 'm1', status: 'COMPLETED' },
    { workflowId: 'loop-1', runId: 'r2', status: 'CONTINUED_AS_NEW' },
    { workflowId: 'loop-1/iter-2-step-1-writer', runId: 'm2', status: 'COMPLETED' },
    { workflowId: 'loop-1/iter-2-step-1-writer', runId: 'm2b', status: 'COMPLETED' },
    { workflowId: 'loop-1', runId: 'r3', status: 'COMPLETED' },
    { workflowId: 'loop-10', runId: 'other', status: 'COMPLETED' },
  );
  const r = await cli(['loop-1']);
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/deleted loop-1 \(3 runs\) and 3 member run\(s\)/);
  const key = (d: { workflowId: string; runId?: string }) => `${d.workflowId}@${d.runId}`;
  expect(deleted.map(key).sort()).toEqual(['loop-1/iter-1-step-1-writer@m1', 'loop-1/iter-2-step-1-writer@m2', 'loop-1/iter-2-step-1-writer@m2b', 'loop-1@r1', 'loop-1@r2', 'loop-1@r3']);
  // The latest run goes last (the id keeps resolving until everything else is gone).
  expect(key(deleted[deleted.length - 1])).toBe('loop-1@r3');
  expect(terminated).toEqual([]);
});

test('a running run needs --force, then it is terminated and deleted by run id', async () => {
  runs.push({ workflowId: 'fresh', runId: 'f1', status: 'RUNNING' });
  expect((await cli(['fresh'])).code).toBe(1);
  expect(deleted).toEqual([]);
  const r = await cli(['fresh', '--force']);
  expect(r.code).toBe(0);
  expect(terminated).toEqual(['fresh']);
  expect(deleted).toEqual([{ workflowId: 'fresh', runId: 'f1' }]);
  expect((await cli(['missing'])).code).toBe(1);
});
