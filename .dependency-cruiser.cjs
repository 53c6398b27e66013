/**
 * Folder dependencies of src/core follow the stage order of prune(): a folder imports only from
 * the layers below it, so no two folders depend on each other. Run with `npm run deps` (part of
 * `npm run lint`).
 *
 * Layers, lowest first. Folders on one layer do not import each other.
 */
const LAYERS = [
  // foundations: token counts, line features, the read policy, syntax (parsing, the syntax index)
  ['tokens', 'features', 'policy', 'syntax'],
  // the learned model; command-output pruning; the laid-out output (pieces, markers) and its measure
  ['model', 'output', 'layout'],
  ['session'],
  // what the stages hand each other
  ['pipeline'],
  // the stages, in the order prune() runs them
  ['ingest'],
  ['score'],
  ['repair'],
  ['select'],
  ['render'],
];
/** Entry points at the top of src/core: they may import anything in it. */
const TOP = ['prune', 'request', 'pruneToolOutput'];

const folder = (names) => `^src/core/(${names.join('|')})/`;
const topFiles = `^src/core/(${TOP.join('|')})\\.ts$`;

const layerRules = LAYERS.flatMap((layer, i) =>
  layer.map((name) => {
    const sameOrHigher = LAYERS.slice(i)
      .flat()
      .filter((other) => other !== name);
    return {
      name: `layer-${name}`,
      comment: `src/core/${name} imports only from the layers below it (.dependency-cruiser.cjs lists them)`,
      severity: 'error',
      from: { path: folder([name]) },
      to: { path: `${folder(sameOrHigher)}|${topFiles}` },
    };
  }),
);

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'core-base',
      comment: "src/core's own files (types, diagnostics, errors, limits, work) are below every folder",
      severity: 'error',
      from: { path: '^src/core/[^/]+\\.ts$', pathNot: topFiles },
      // the one exception: a request carries its session (PruneRequest.session), named as a type
      to: { path: '^src/core/[^/]+/', pathNot: '^src/core/session/memory\\.ts$' },
    },
    {
      name: 'core-base-session-type',
      comment: 'types.ts names the session type only: a runtime import would be a cycle',
      severity: 'error',
      from: { path: '^src/core/[^/]+\\.ts$', pathNot: topFiles },
      to: { path: '^src/core/session/memory\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'core-is-a-library',
      comment: 'src/core does not import the adapters, tools or scripts built on it',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // type-only imports count: a cycle of types is still a cycle for a reader
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/.*\\.json$' },
  },
};
