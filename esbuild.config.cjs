// @ts-check
/**
 * How every function is bundled, in one place: serverless-esbuild reads it (serverless.yml
 * `custom.esbuild.config`) for `serverless package` and `serverless offline`, and `npm run bench`
 * bundles with the same options (bench/common.mjs), so the bench measures what is deployed.
 *
 * ESM output (`.mjs`, which the nodejs24.x runtime and serverless offline load as modules) with
 * the packages' ESM entry points first (`module` before `main`): the AWS SDK's `dist-es` builds
 * tree-shake far better than its `dist-cjs` ones (each function about 190 KiB smaller, about 40 ms
 * faster to start; docs/benchmarks.md). A CommonJS dependency that `require()`s Node's
 * built-ins fails in an ES module, which has no `require` ("Dynamic require of node:https is not
 * supported"): the banner gives the bundle one. aws-embedded-metrics (CommonJS, it
 * requires `console`) needs it in every function.
 */
const REQUIRE_BANNER =
  "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);";

/** @returns {Record<string, unknown>} serverless-esbuild's options (esbuild's, plus its own) */
module.exports = () => ({
  bundle: true,
  minify: true,
  sourcemap: false,
  format: 'esm',
  outputFileExtension: '.mjs',
  mainFields: ['module', 'main'],
  banner: { js: REQUIRE_BANNER },
  // The oldest Node that loads the bundles: serverless offline on a supported local Node (engines).
  target: 'node20',
  platform: 'node',
  // The SDK is bundled and tree-shaken with the rest, not taken from the runtime.
  exclude: [],
  packager: 'npm',
  // `serverless package` empties its work folder first. A running `npm start` (or a test's
  // offline) loads its handlers from the folder it built into, so each one builds into a folder of
  // its own (scripts/offline.ts sets it) and a packaging in the same checkout cannot remove them.
  outputWorkFolder: process.env.OCLOUD_BUILD_FOLDER || '.esbuild',
  // serverless offline rebuilds on a change of the functions' sources. Its default watches every
  // .js and .ts under the project: that walked .data too, where the agent image's build keeps a
  // Debian root file system (800 MB), and a running `npm start` answered twice as slowly.
  watch: {
    pattern: ['functions/**/*.ts', 'lib/**/*.ts', 'lib/**/*.json'],
    ignore: ['.data', '.esbuild', '.esbuild-local', 'dist', 'node_modules', '.build'],
  },
});
