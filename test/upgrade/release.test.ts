/**
 * `npm run release` (scripts/release.ts) on a copy of this checkout's HEAD, as a maintainer runs
 * it: what it refuses (a version not above the current one, a dirty tree, failing tests) leaves
 * the clone as it was; a release sets every version, moves the changelog's notes, stores the
 * fixtures, commits and tags. The suite that must pass before a release is this very suite, so the
 * clone runs RELEASE_TEST_COMMAND in its place: `true`, and `exit 3` to show a failure refuses.
 */
import { execFile } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../../scripts/processes';

const run = promisify(execFile);
let dir: string;
let clone: string;

const git = async (...args: string[]) => (await run('git', args, { cwd: clone })).stdout.trim();
const read = (path: string) => readFileSync(join(clone, path), 'utf8');

/** The release script in the clone; its exit code and what it printed. */
async function release(version: string, testCommand = 'true') {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/release.ts', version],
      {
        cwd: clone,
        // Only what a maintainer's shell has: none of this worker's table, endpoints or keys.
        env: { PATH: process.env.PATH, HOME: process.env.HOME, RELEASE_TEST_COMMAND: testCommand },
        timeout: 400_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

const current = JSON.parse(readFileSync(join(PROJECT_DIR, 'package.json'), 'utf8')).version as string;
const [major, minor] = current.split('.').map(Number);
const next = `${major}.${Number(minor) + 1}.0`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ocloud-release-test-'));
  clone = join(dir, 'repo');
  // HEAD's commit alone, whatever the checkout is on (a branch, or CI's detached HEAD): no tags.
  await run('git', ['init', '--quiet', clone]);
  await git('fetch', '--quiet', '--no-tags', PROJECT_DIR, 'HEAD');
  await git('checkout', '--quiet', 'FETCH_HEAD');
  await symlink(realpathSync(join(PROJECT_DIR, 'node_modules')), join(clone, 'node_modules'));
  // A symlink is not matched by .gitignore's `node_modules/`: the clone's tree must stay clean.
  await mkdir(join(clone, '.git', 'info'), { recursive: true });
  await appendFile(join(clone, '.git', 'info', 'exclude'), 'node_modules\n');
  await git('config', 'user.name', 'Release Test');
  await git('config', 'user.email', 'release-test@example.com');
  // Right after a release HEAD's Unreleased section is empty, and a release refuses that: the
  // clone's has a note of its own, as a change waiting for the next release would.
  const changelog = read('CHANGELOG.md');
  if (/## \[Unreleased\]\s*\n## \[/.test(changelog)) {
    writeFileSync(
      join(clone, 'CHANGELOG.md'),
      changelog.replace(
        '## [Unreleased]\n',
        "## [Unreleased]\n\n### Fixed\n\n- The release test's change.\n",
      ),
    );
    await git('commit', '--quiet', '-am', 'a change for the release test');
  }
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm run release', () => {
  it('refuses a version that is not a semantic version above the current one, and changes nothing', async () => {
    for (const [version, reason] of [
      [current, `is not above ${current}`],
      ['0.0.1', `is not above ${current}`],
      ['1.0', 'is not a semantic version'],
    ] as const) {
      const refused = await release(version);
      expect(refused.code, refused.output).toBe(1);
      expect(refused.output).toContain(`release refused: ${version} ${reason}`);
    }
    expect(await git('status', '--porcelain')).toBe('');
    expect(await git('tag')).toBe('');
  });

  it('refuses on a working tree that is not clean', async () => {
    writeFileSync(join(clone, 'README.md'), `${read('README.md')}\nan edit not committed\n`);
    const refused = await release(next);
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toMatch(/release refused: the working tree is not clean:\s+M README\.md/);
    await git('checkout', '--', 'README.md');
  });

  it('refuses when the tests fail, leaving the tree as it was', async () => {
    const head = await git('rev-parse', 'HEAD');
    const refused = await release(next, 'exit 3');
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toContain('release refused: Command failed: exit 3');
    expect(await git('rev-parse', 'HEAD')).toBe(head);
    expect(await git('status', '--porcelain')).toBe('');
  });

  it('sets every version, moves the notes under the version, stores the fixtures, commits and tags', async () => {
    const notes = /## \[Unreleased\]\n([\s\S]*?)(?=\n## \[|$)/.exec(read('CHANGELOG.md'))?.[1]?.trim();
    expect(notes).toBeTruthy();
    const released = await release(next);
    expect(released.code, released.output).toBe(0);

    expect(await git('status', '--porcelain')).toBe('');
    expect(await git('describe', '--exact-match', 'HEAD')).toBe(`v${next}`);
    expect(await git('log', '-1', '--format=%s')).toBe(`release ${next}`);
    expect(JSON.parse(read('package.json')).version).toBe(next);
    const lock = JSON.parse(read('package-lock.json'));
    expect([lock.version, lock.packages[''].version]).toEqual([next, next]);
    expect(JSON.parse(read('lib/http/openapi.json')).info.version).toBe(next);
    expect(read('agent/kubernetes/ocloud-node-agent.yaml')).toContain(
      `image: localhost/ocloud-node-agent:${next}\n`,
    );
    const date = new Date().toISOString().slice(0, 10);
    expect(read('CHANGELOG.md')).toContain(`## [Unreleased]\n\n## [${next}] - ${date}\n\n${notes}\n`);

    const fixtures = join('test', 'upgrade', 'releases', next);
    const template = JSON.parse(read(join(fixtures, 'template.json')));
    expect(template.Resources.NotificationsTable.Type).toBe('AWS::DynamoDB::Table');
    const items = JSON.parse(read(join(fixtures, 'items.json')));
    expect(items.version).toBe(next);
  }, 400_000);
});
