/**
 * An offline install of the packed package into a user's project: npm resolves version ranges from
 * registry metadata, which the npm cache of a `npm ci` does not hold (it keeps tarballs, found by
 * their integrity). So the project gets a lockfile written from this repository's own: the packed
 * tarball as `file:` plus every package its dependencies (and the project's own) reach, with the
 * version and integrity this repository installed. `npm ci --offline` then installs exactly those,
 * from the cache, with no registry request — the same tree on every run.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

interface LockEntry { version?: string; integrity?: string; resolved?: string; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; dev?: boolean; devOptional?: boolean; peer?: boolean; [k: string]: unknown }
interface PackageJson { name: string; version: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; bin?: unknown; engines?: unknown }

/** Where Node finds `name` from the package at lock path `from` ('' is the project): the nearest node_modules up the tree. */
function resolveIn(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  for (let dir = from; ;) {
    const key = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (packages[key]) return key;
    if (!dir) return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

/**
 * Point `projectDir`'s package.json at `tarball` for `@agentloom/core` and write its package-lock.json
 * from `repoLock`. Returns the number of packages locked. A dependency the repository's lock lacks
 * is an error naming it (the offline install could not find it either).
 */
export function writeOfflineLock(repoLock: string, projectDir: string, tarball: string): number {
  const lock = JSON.parse(fs.readFileSync(repoLock, 'utf8')) as { packages: Record<string, LockEntry> };
  const pkgFile = path.join(projectDir, 'package.json');
  const app = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as PackageJson;
  const core = JSON.parse(execFileSync('tar', ['-xOzf', tarball, 'package/package.json'], { encoding: 'utf8' })) as PackageJson;
  const spec = `file:${path.relative(projectDir, tarball)}`;
  app.dependencies = { ...app.dependencies, [core.name]: spec };
  fs.writeFileSync(pkgFile, JSON.stringify(app, null, 2) + '\n');

  const coreKey = `node_modules/${core.name}`;
  const packages: Record<string, LockEntry> = {
    '': { name: app.name, version: app.version, dependencies: app.dependencies, devDependencies: app.devDependencies },
    [coreKey]: { version: core.version, resolved: spec, dependencies: core.dependencies, bin: core.bin, engines: core.engines },
  };
  // The package is installed at the top, so its dependencies resolve from the top as the project's do.
  const queue: [string, Record<string, string>][] = [['', { ...app.dependencies, ...app.devDependencies }], ['', core.dependencies ?? {}]];
  const missing: string[] = [];
  while (queue.length) {
    const [from, deps] = queue.shift()!;
    for (const name of Object.keys(deps)) {
      if (name === core.name) continue;
      const key = resolveIn(lock.packages, from, name);
      if (!key) {
        missing.push(`${name} (from ${from || 'the project'})`);
        continue;
      }
      if (packages[key]) continue;
      // Flags describe the repository's tree (its dev dependencies); npm works them out for this one.
      const { dev: _d, devOptional: _o, peer: _p, ...entry } = lock.packages[key];
      // An entry the repository's lock keeps without `resolved` (npm writes some so): the registry's
      // tarball address, which is the npm cache's key, so npm needs no metadata request to find it.
      if (!entry.resolved && entry.version) entry.resolved = registryTarball(key, entry.version);
      packages[key] = entry;
      queue.push([key, { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies }]);
    }
  }
  // A peer or optional dependency the repository never installed is not needed; any other is.
  const required = missing.filter((m) => !isOptionalOrPeer(lock.packages, m));
  if (required.length) throw new Error(`the repository's package-lock.json lacks ${required.join(', ')}: the offline install cannot resolve them`);
  fs.writeFileSync(path.join(projectDir, 'package-lock.json'), JSON.stringify({ name: app.name, version: app.version, lockfileVersion: 3, requires: true, packages }, null, 2) + '\n');
  return Object.keys(packages).length - 1;
}

/** The public registry's tarball address of the package at lock path `key` (…/node_modules/@scope/name). */
function registryTarball(key: string, version: string): string {
  const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
  return `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${version}.tgz`;
}

function isOptionalOrPeer(packages: Record<string, LockEntry>, missing: string): boolean {
  const m = /^(.+) \(from (.+)\)$/.exec(missing);
  if (!m) return false;
  const e = packages[m[2]];
  return Boolean(e?.optionalDependencies?.[m[1]] || e?.peerDependencies?.[m[1]]);
}
