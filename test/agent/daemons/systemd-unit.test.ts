/**
 * The systemd unit shipped in the agent's package (agent/systemd/ocloud-node-agent.service),
 * checked as a node gets it: the package built (`npm run build:agent`) and installed where the
 * unit's ExecStart says, /opt/ocloud-agent, inside a root of the test's own, then
 * `systemd-analyze --root=<that root> verify` (Debian's `systemd`; skipped without it), which
 * also fails on an ExecStart that is not there. Its output must be empty: an unknown or
 * misspelt setting is only a warning.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../../../scripts/agent-lab';

const missing =
  spawnSync('sh', ['-c', 'command -v systemd-analyze']).status === 0
    ? undefined
    : 'systemd-analyze is not installed (apt-get install -y systemd)';
if (missing) console.warn(`Skipping the systemd unit's test: ${missing}.`);

const UNIT = 'ocloud-node-agent.service';

describe.skipIf(missing)('the systemd unit in the package', { timeout: 240_000 }, () => {
  let root: string;
  let unitPath: string;
  let unit: string;
  const verify = (path: string) =>
    spawnSync('systemd-analyze', [`--root=${root}`, 'verify', path], { encoding: 'utf8' });

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'ocloud-unit-'));
    const built = execFileSync('npm', ['run', '-s', 'build:agent'], { cwd: PROJECT_DIR, encoding: 'utf8' });
    const tgz = built.trim().split(' ')[0] ?? '';
    const prefix = join(root, 'opt', 'ocloud-agent');
    mkdirSync(prefix, { recursive: true });
    execFileSync('npm', [
      'install',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-fund',
      '--no-audit',
      '--loglevel=error',
      tgz,
    ]);
    // The distribution's targets and slices (sysinit.target…) as the root's; not its aliases,
    // absolute symbolic links that would point out of the root.
    const units = join(root, 'usr', 'lib', 'systemd', 'system');
    mkdirSync(units, { recursive: true });
    for (const name of readdirSync('/usr/lib/systemd/system')) {
      const path = join('/usr/lib/systemd/system', name);
      if (/\.(target|slice)$/.test(name) && lstatSync(path).isFile()) copyFileSync(path, join(units, name));
    }
    mkdirSync(join(root, 'etc', 'systemd', 'system'), { recursive: true });
    mkdirSync(join(root, 'etc', 'default'), { recursive: true });
    writeFileSync(join(root, 'etc', 'default', 'ocloud-node-agent'), 'SERVICE_URL=http://127.0.0.1:3000\n');
    unitPath = join(root, 'etc', 'systemd', 'system', UNIT);
    copyFileSync(join(prefix, 'node_modules', 'ocloud-node-agent', 'systemd', UNIT), unitPath);
    unit = readFileSync(unitPath, 'utf8');
  }, 300_000);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('is in the package and verifies with no word from systemd-analyze', () => {
    const verified = verify(unitPath);
    expect(verified.stderr + verified.stdout).toBe('');
    expect(verified.status).toBe(0);
  });

  it('runs the installed bin, with the hardening a node daemon should have', () => {
    expect(unit).toMatch(/^ExecStart=\/opt\/ocloud-agent\/node_modules\/\.bin\/ocloud-node-agent$/m);
    const help = spawnSync(
      join(root, 'opt', 'ocloud-agent', 'node_modules', '.bin', 'ocloud-node-agent'),
      ['--help'],
      {
        encoding: 'utf8',
      },
    );
    expect(help.status).toBe(0);
    expect(help.stderr).toContain('--synce4l');
    for (const setting of [
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'StateDirectory=ocloud-agent',
      'CapabilityBoundingSet=CAP_DAC_OVERRIDE',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
      'EnvironmentFile=/etc/default/ocloud-node-agent',
    ])
      expect(unit.split('\n')).toContain(setting);
  });

  it('the check is real: a misspelt setting or a missing binary is reported', () => {
    const bad = join(root, 'etc', 'systemd', 'system', 'ocloud-bad.service');
    writeFileSync(
      bad,
      unit
        .replace(/^ProtectSystem=strict$/m, 'ProtectSistem=strict')
        .replace('ExecStart=/opt/ocloud-agent', 'ExecStart=/opt/nowhere'),
    );
    const verified = verify(bad);
    expect(verified.stderr).toContain("Unknown key 'ProtectSistem'");
    expect(verified.stderr).toContain('/opt/nowhere/node_modules/.bin/ocloud-node-agent is not executable');
    expect(verified.status).not.toBe(0);
  });
});
