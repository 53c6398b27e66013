/**
 * Bundles the read commands (src/cli/readMain.ts, as compiled in dist/) into dist/skim-read.cjs
 * and makes its V8 code cache (dist/skim-read.cjs.cache) by running prune, cat and grep once each
 * (src/cli/launch.ts loads both; BENCHMARKS.md, "Start-up"). Part of `npm run build`, after tsc.
 * web-tree-sitter is bundled too (grammars.ts tells it where its .wasm is).
 *
 * Also bundles what bin/skim.js runs first (src/cli/launch.ts and the daemon's client) into
 * dist/skim-launch.cjs: one CommonJS file, so a call the warm daemon answers loads no ES module
 * (Node's ES module loader alone costs a warm call about a tenth of its CPU). Every other module
 * stays where it is, imported when needed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const out = path.join(dist, 'skim-read.cjs');
const cache = `${out}.cache`;
rmSync(cache, { force: true });

/** Both bundles: one CommonJS file for Node 20. */
const cjsForNode = { bundle: true, platform: 'node', format: 'cjs', target: 'node20' };

await build({
  ...cjsForNode,
  entryPoints: [path.join(dist, 'cli', 'readMain.js')],
  outfile: out,
  // ES modules are strict; so is the bundle. import.meta.url is the bundle's own URL (dist/, as the modules' was)
  banner: { js: `"use strict";\nconst __skimMetaUrl = require('node:url').pathToFileURL(__filename).href;` },
  define: { 'import.meta.url': '__skimMetaUrl' },
  // web-tree-sitter's CommonJS build (its ES module build locates itself through import.meta);
  // its import('fs/promises') becomes a require, as vm.Script has no module loader
  plugins: [
    {
      name: 'web-tree-sitter-cjs',
      setup(b) {
        b.onResolve({ filter: /^web-tree-sitter$/ }, () => ({ path: path.join(root, 'node_modules/web-tree-sitter/web-tree-sitter.cjs') }));
      },
    },
    {
      // zod re-exports the messages of every locale (a third of its code); skim uses the English
      // ones, which zod installs from locales/en.js itself
      name: 'zod-without-locales',
      setup(b) {
        b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
          args.importer.includes(`${path.sep}zod${path.sep}`) ? { path: 'zod-locales', namespace: 'zod-locales' } : undefined,
        );
        b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, () => ({ contents: 'export {};', loader: 'js' }));
      },
    },
  ],
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
});
// The launcher: launch.js with the daemon's client; every other import() stays a module of dist/.
// Each module's import.meta.url stays its own file's URL (launch.ts and place.ts find dist/ and
// the package from it).
const launcher = path.join(dist, 'skim-launch.cjs');
/** A file of dist/ as the bundle names it: relative to dist/, with forward slashes. */
const inDist = (file) => path.relative(dist, file).split(path.sep).join('/');
await build({
  ...cjsForNode,
  entryPoints: [path.join(dist, 'cli', 'launch.js')],
  outfile: launcher,
  banner: { js: `"use strict";\nconst __skimUrlOf = (file) => require('node:url').pathToFileURL(require('node:path').join(__dirname, file)).href;` },
  plugins: [
    {
      name: 'launcher',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind !== 'dynamic-import' || args.path.endsWith('/daemon/client.js')) return undefined;
          return { path: `./${inDist(path.resolve(args.resolveDir, args.path))}`, external: true };
        });
        b.onLoad({ filter: /\.js$/ }, (args) => {
          const text = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', `__skimUrlOf(${JSON.stringify(inDist(args.path))})`);
          return { contents: text, loader: 'js' };
        });
      },
    },
  ],
  logLevel: 'warning',
});
if (/\bimport\.meta\b/.test(readFileSync(launcher, 'utf8'))) throw new Error(`${launcher}: import.meta was left in the bundle`);

// a dynamic import() left in the bundle would need a module loader that vm.Script does not give
const text = readFileSync(out, 'utf8');
const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
if (/\bimport\(/.test(code)) throw new Error(`${out}: a dynamic import() was left in the bundle`);

// the code cache: every function these runs compile (each run starts from the previous run's cache)
const q = 'caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?';
const env = { ...process.env, SKIM_WRITE_CODE_CACHE: '1', SKIM_DAEMON: '0' }; // in process: these runs make the cache
for (const k of ['SKIM_NO_BUNDLE', 'SKIM_SESSION', 'SKIM_TASK']) delete env[k];
for (const args of [
  ['prune', 'examples/logging.py', '--query', q],
  ['prune', 'examples/logging.py', '--query', q, '--ratio', '4'],
  ['cat', 'examples/logging.py', '--focus', q],
  ['grep', '-C', '3', 'records', 'examples', '--focus', q],
]) {
  // (their warnings, such as a long read's, are the runs' own business: shown only when a run fails)
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'skim.js'), ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`skim ${args[0]} failed while making the code cache (exit ${r.status}): ${r.stderr}`);
}
if (!existsSync(cache)) throw new Error(`${cache} was not written`);
console.log(`${path.relative(root, out)}: ${(text.length / 1024).toFixed(0)} KB, code cache ${(readFileSync(cache).length / 1024).toFixed(0)} KB`);
console.log(`${path.relative(root, launcher)}: ${(readFileSync(launcher).length / 1024).toFixed(0)} KB`);
