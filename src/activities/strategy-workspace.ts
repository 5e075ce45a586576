/**
 * Workspace snapshots for fuseraft's scatter-gather ("an isolated snapshot"): each participant works in its own
 * copy of the run's shared workspace as it is when the scatter phase starts, so participants never
 * see each other's files and nothing they write reaches the shared workspace.
 */
import * as fs from 'fs';
import * as path from 'path';

/** `<workspace>.snapshots/<role>`: beside the workspace, never inside it (a copy must not copy itself). */
export function snapshotPath(workspace: string, role: string): string {
  return path.join(`${path.resolve(workspace)}.snapshots`, role.replace(/[^A-Za-z0-9._-]/g, '_'));
}

export function createStrategyWorkspaceActivities() {
  return {
    /** One fresh copy of `workspace` per role (a retried attempt starts the copies again); their real paths, in order. */
    async strategyWorkspaceSnapshots(inp: { workspace: string; roles: string[] }): Promise<string[]> {
      const out: string[] = [];
      for (const role of inp.roles) {
        const dest = snapshotPath(inp.workspace, role);
        await fs.promises.rm(dest, { recursive: true, force: true });
        await fs.promises.mkdir(path.dirname(dest), { recursive: true });
        if (fs.existsSync(inp.workspace)) await fs.promises.cp(inp.workspace, dest, { recursive: true });
        else await fs.promises.mkdir(dest, { recursive: true });
        out.push(await fs.promises.realpath(dest));
      }
      return out;
    },
  };
}
