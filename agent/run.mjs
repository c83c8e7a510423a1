// @ts-check
/**
 * `npm run agent -- …`: bundles the agent's TypeScript (and the lib/domain rules it shares with
 * the service) with esbuild into .esbuild/agent/, then runs it. Packages stay in node_modules.
 */
import { renameSync } from 'node:fs';
import { build } from 'esbuild';

const outfile = new URL('../.esbuild/agent/main.mjs', import.meta.url).pathname;
// Built aside and renamed: agents started together never import a bundle another one is writing.
const aside = outfile.replace(/\.mjs$/, `.${process.pid}.mjs`);
await build({
  entryPoints: [new URL('./main.ts', import.meta.url).pathname],
  outfile: aside,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'error',
});
renameSync(aside, outfile);
await import(outfile);
