/**
 * `npm run build:agent`: the node agent as one npm package a node installs on its own,
 * `dist/ocloud-node-agent-<version>.tgz`, with the bin `ocloud-node-agent`. esbuild bundles the
 * agent, the service's code it serves its node's API with (--serve) and its JavaScript packages
 * (the AWS signer and credential chain, middy, Powertools' logger) into one file, without the
 * region's adapters (agent/serve/without-region.ts); node-unix-socket, whose prebuilt native binaries
 * npm picks per platform, stays a dependency. Nothing else of the repository goes in.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const project = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const NATIVE = 'node-unix-socket';
const stage = join(root, '.esbuild', 'agent-package');
const dist = join(root, 'dist');
rmSync(stage, { recursive: true, force: true });
mkdirSync(join(stage, 'bin'), { recursive: true });
mkdirSync(dist, { recursive: true });
for (const old of readdirSync(dist).filter((name) => name.startsWith('ocloud-node-agent-'))) {
  rmSync(join(dist, old));
}

await build({
  entryPoints: [join(root, 'agent', 'main.ts')],
  outfile: join(stage, 'bin', 'ocloud-node-agent.mjs'),
  bundle: true,
  minify: true,
  legalComments: 'none',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: [NATIVE],
  // A node serves with its own adapters: the region's, and their AWS SDK clients, stay out.
  plugins: [
    {
      name: 'without-region',
      setup: (bundler) =>
        bundler.onResolve({ filter: /\/hosts\/region$/ }, () => ({
          path: join(root, 'agent', 'serve', 'without-region.ts'),
        })),
    },
  ],
  // The AWS SDK's CommonJS parts call require(); an ES module has none of its own. A node daemon
  // favours its footprint over speed: V8's --optimize-for-size (docs/agent.md, "Memory"), on every
  // way the agent starts (the unit, the image's entrypoint and npx all run this bin).
  banner: {
    js: "#!/usr/bin/env -S node --optimize-for-size\nimport { createRequire as __agentRequire } from 'node:module';\nconst require = __agentRequire(import.meta.url);",
  },
  logLevel: 'error',
});

writeFileSync(
  join(stage, 'package.json'),
  `${JSON.stringify(
    {
      name: 'ocloud-node-agent',
      version: project.version,
      description:
        "O-Cloud notification node agent: publishes a node's PTP, GNSS, OS clock and SyncE states (ptp4l, gpsd, chronyd, phc2sys, synce4l)",
      license: project.license,
      type: 'module',
      bin: { 'ocloud-node-agent': 'bin/ocloud-node-agent.mjs' },
      engines: project.engines,
      dependencies: { [NATIVE]: project.dependencies[NATIVE] },
    },
    null,
    2,
  )}\n`,
);
copyFileSync(join(root, 'LICENSE'), join(stage, 'LICENSE'));
// The systemd unit a bare-metal node enables (docs/agent.md).
cpSync(join(root, 'agent', 'systemd'), join(stage, 'systemd'), { recursive: true });
writeFileSync(
  join(stage, 'README.md'),
  "# ocloud-node-agent\n\n`ocloud-node-agent --help` lists its settings; the project's docs/agent.md describes them and the states it publishes; `systemd/ocloud-node-agent.service` is its systemd unit.\n",
);
const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', dist], {
  cwd: stage,
  encoding: 'utf8',
}).trim();
const tgz = join(dist, packed.split('\n').at(-1) ?? '');
console.log(`${tgz} (${(statSync(tgz).size / 1024).toFixed(0)} KiB)`);
