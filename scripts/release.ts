/**
 * `npm run release -- <version>` (docs/deploy.md: Releases and upgrades): on a clean working tree, with the
 * tests passing, sets the service's and the agent's version (package.json and its lock, the
 * OpenAPI document, the DaemonSet's image), moves CHANGELOG.md's Unreleased section under the
 * version, stores the release's fixtures (its packaged template and the items its handlers write:
 * test/upgrade/releases/<version>/), commits and tags `v<version>`. RELEASE_TEST_COMMAND replaces
 * `npm test` (test/upgrade/release.test.ts runs this on a copy of the repository, where the suite
 * that runs it cannot run again).
 */
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_DIR } from './processes';

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;

/** Semantic versions' precedence (semver.org, 11): the numbers, then a pre-release below none. */
export function compareVersions(a: string, b: string): number {
  const [pa, pb] = [SEMVER.exec(a), SEMVER.exec(b)];
  if (!pa || !pb) throw new Error(`not a semantic version: ${pa ? b : a}`);
  for (const i of [1, 2, 3]) {
    const difference = Number(pa[i]) - Number(pb[i]);
    if (difference !== 0) return Math.sign(difference);
  }
  const [ra, rb] = [pa[4]?.split('.'), pb[4]?.split('.')];
  if (!ra || !rb) return ra ? -1 : rb ? 1 : 0;
  for (let i = 0; i < Math.max(ra.length, rb.length); i++) {
    const [x, y] = [ra[i], rb[i]];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x === y) continue;
    const numeric = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (numeric[0] && numeric[1]) return Math.sign(Number(x) - Number(y));
    if (numeric[0] !== numeric[1]) return numeric[0] ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** `## [Unreleased]`'s notes move under `## [<version>] - <date>`; an empty Unreleased stays on top. */
export function changelogForRelease(changelog: string, version: string, date: string): string {
  const match = /^## \[Unreleased\][^\n]*\n([\s\S]*?)(?=^## \[|(?![\s\S]))/m.exec(changelog);
  if (!match) throw new Error('CHANGELOG.md has no "## [Unreleased]" section');
  const notes = match[1]?.trim() ?? '';
  if (!notes) throw new Error("CHANGELOG.md's Unreleased section is empty: say what this release changes");
  const released = `## [Unreleased]\n\n## [${version}] - ${date}\n\n${notes}\n\n`;
  return changelog.replace(match[0], released).replace(/\n+$/, '\n');
}

/** The packaged template without what changes at every packaging (code locations and hashes). */
function storedTemplate(packageDir: string): string {
  const text = readFileSync(join(packageDir, 'cloudformation-template-update-stack.json'), 'utf8');
  const template = JSON.parse(text.replace(/(LambdaVersion)[A-Za-z0-9]{30,}/g, '$1'));
  for (const resource of Object.values<{ Properties?: Record<string, unknown> }>(template.Resources)) {
    const code = resource.Properties?.Code as { S3Key?: string } | undefined;
    if (code?.S3Key) code.S3Key = code.S3Key.split('/').pop();
    delete resource.Properties?.CodeSha256;
  }
  return `${JSON.stringify(template, null, 2)}\n`;
}

/**
 * A release's fixtures in `into` (relative to the checkout): the template `serverless package
 * --stage prod` makes of it, and the items its handlers write (test/upgrade/write-release-items.ts).
 */
export function storeFixtures(into: string): void {
  const packageDir = mkdtempSync(join(tmpdir(), 'ocloud-release-'));
  try {
    mkdirSync(join(PROJECT_DIR, into), { recursive: true });
    // Quiet unless they fail: then what they printed on stderr says why.
    const quiet = {
      cwd: PROJECT_DIR,
      stdio: ['ignore', 'ignore', 'inherit'] as ['ignore', 'ignore', 'inherit'],
    };
    execFileSync(
      'node_modules/.bin/serverless',
      ['package', '--stage', 'prod', '--package', packageDir],
      quiet,
    );
    writeFileSync(join(PROJECT_DIR, into, 'template.json'), storedTemplate(packageDir));
    execFileSync('node_modules/.bin/vitest', ['run', '--config', 'vitest.release.config.mts'], {
      ...quiet,
      // A data key of the fixtures' own (items.json keeps it), never the checkout's .data/ one.
      env: {
        ...process.env,
        RELEASE_FIXTURE_DIR: join(PROJECT_DIR, into),
        SIGNING_KEY_FILE: join(packageDir, 'key'),
      },
    });
  } finally {
    rmSync(packageDir, { recursive: true, force: true });
  }
}

function release(version: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: PROJECT_DIR, encoding: 'utf8' });
  const read = (path: string) => readFileSync(join(PROJECT_DIR, path), 'utf8');
  const current = JSON.parse(read('package.json')).version as string;
  if (!SEMVER.test(version)) throw new Error(`${version} is not a semantic version (e.g. 1.4.0)`);
  if (compareVersions(version, current) <= 0) throw new Error(`${version} is not above ${current}`);
  if (git('tag', '--list', `v${version}`)) throw new Error(`the tag v${version} exists already`);
  const dirty = git('status', '--porcelain');
  if (dirty) throw new Error(`the working tree is not clean:\n${dirty}`);
  const changelog = changelogForRelease(read('CHANGELOG.md'), version, new Date().toISOString().slice(0, 10));

  console.log(`release ${version}: the tests`);
  execSync(process.env.RELEASE_TEST_COMMAND || 'npm test', { cwd: PROJECT_DIR, stdio: 'inherit' });
  const fixtures = join('test', 'upgrade', 'releases', version);
  try {
    execFileSync('npm', ['version', version, '--no-git-tag-version'], { cwd: PROJECT_DIR, stdio: 'ignore' });
    const versioned = (path: string, pattern: RegExp, replacement: string) => {
      const text = read(path);
      if (!pattern.test(text)) throw new Error(`${path}: no version to set (${pattern})`);
      writeFileSync(join(PROJECT_DIR, path), text.replace(pattern, replacement));
    };
    versioned('lib/http/openapi.json', /("info": \{[^}]*?"version": ")[^"]+/, `$1${version}`);
    versioned(
      'agent/kubernetes/ocloud-node-agent.yaml',
      /(image: localhost\/ocloud-node-agent:)\S+/,
      `$1${version}`,
    );
    writeFileSync(join(PROJECT_DIR, 'CHANGELOG.md'), changelog);

    console.log(`release ${version}: its fixtures in ${fixtures}`);
    storeFixtures(fixtures);

    git('add', '--all');
    git('commit', '--quiet', '-m', `release ${version}`);
    git('tag', '--annotate', `v${version}`, '-m', `release ${version}`);
  } catch (error) {
    // The tree was clean: what this run wrote is all there is to undo.
    git('reset', '--quiet', '--hard', 'HEAD');
    rmSync(join(PROJECT_DIR, fixtures), { recursive: true, force: true });
    throw error;
  }
  console.log(`released ${version}: commit and tag v${version} (push both: git push --follow-tags)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [version, ...rest] = process.argv.slice(2);
  try {
    if (!version || rest.length > 0) throw new Error('usage: npm run release -- <version>');
    release(version);
  } catch (error) {
    console.error(`release refused: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
