// @ts-check
/**
 * `npm run agent -- …`: bundles the agent's TypeScript (and the lib/domain rules it shares with
 * the service) with esbuild into .esbuild/agent/, then runs it. Packages stay in node_modules.
 */
import { build } from 'esbuild';

const outfile = new URL('../.esbuild/agent/main.mjs', import.meta.url).pathname;
await build({
  entryPoints: [new URL('./main.ts', import.meta.url).pathname],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'error',
});
await import(outfile);
