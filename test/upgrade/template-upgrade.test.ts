/**
 * Upgrades never replace what holds data (docs/deploy.md: Upgrades): the newest stored release's
 * template (test/upgrade/releases/<version>/template.json, written by `npm run release`) against
 * HEAD's `serverless package --stage prod`. Every resource that holds data or delivery state (found
 * by type: the table, every queue and dead-letter queue, KMS keys, Secrets Manager secrets) must
 * still be there under the same logical id, with the same value of every property CloudFormation
 * replaces the resource for (its registry schema's createOnlyProperties, from the maintained copy
 * in @aws-cdk/aws-service-spec), and must be retained on deletion and on replacement.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { loadAwsServiceSpec } from '@aws-cdk/aws-service-spec';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_DIR } from '../../scripts/processes';
import { latestRelease } from './releases';

interface Resource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}
interface Template {
  readonly Resources: Record<string, Resource>;
}

/** What holds data or delivery state: never removed, renamed or replaced by an upgrade. */
const DATA_TYPES = [
  'AWS::DynamoDB::Table',
  'AWS::SQS::Queue',
  'AWS::KMS::Key',
  'AWS::SecretsManager::Secret',
];

/**
 * Resources that hold data a release deliberately stopped using, by logical id, with that release
 * (docs/deploy.md: When a replacement is needed anyway): their removal is not a problem.
 */
const RETIRED: Readonly<Record<string, string>> = {};

type ReplacingProperties = (type: string) => string[];

/**
 * What an upgrade from `before` to `after` would do to the resources that hold data, one line per
 * problem naming the resource and the property; none: the upgrade keeps them all.
 */
function upgradeProblems(before: Template, after: Template, replacing: ReplacingProperties): string[] {
  const problems: string[] = [];
  for (const [id, old] of Object.entries(before.Resources)) {
    if (!DATA_TYPES.includes(old.Type)) continue;
    const now = after.Resources[id];
    if (!now && id in RETIRED) continue;
    if (!now) {
      problems.push(`${id} (${old.Type}) is gone: removed or renamed, CloudFormation would delete it`);
      continue;
    }
    if (now.Type !== old.Type) problems.push(`${id}: its type ${old.Type} became ${now.Type}`);
    for (const property of replacing(old.Type)) {
      if (!isDeepStrictEqual(old.Properties?.[property], now.Properties?.[property]))
        problems.push(
          `${id} (${old.Type}): ${property} changed, and CloudFormation replaces the resource for it`,
        );
    }
  }
  for (const [id, resource] of Object.entries(after.Resources)) {
    if (!DATA_TYPES.includes(resource.Type)) continue;
    for (const policy of ['DeletionPolicy', 'UpdateReplacePolicy'] as const)
      if (resource[policy] !== 'Retain') problems.push(`${id} (${resource.Type}): ${policy} is not Retain`);
  }
  return problems;
}

const run = promisify(execFile);

async function packagedHead(): Promise<Template> {
  const dir = await mkdtemp(join(tmpdir(), 'ocloud-upgrade-'));
  // A build folder of its own: test/stack/package.test.ts packages in the same checkout meanwhile.
  const buildFolder = join('.esbuild-local', `upgrade-${process.pid}`);
  try {
    await run('node_modules/.bin/serverless', ['package', '--stage', 'prod', '--package', dir], {
      cwd: PROJECT_DIR,
      env: { ...process.env, OCLOUD_BUILD_FOLDER: buildFolder },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(await readFile(join(dir, 'cloudformation-template-update-stack.json'), 'utf8'));
  } finally {
    await Promise.all([
      rm(dir, { recursive: true, force: true }),
      rm(join(PROJECT_DIR, buildFolder), { recursive: true, force: true }),
    ]);
  }
}

const release = latestRelease();
let stored: Template;
let head: Template;
let replacing: ReplacingProperties;

beforeAll(async () => {
  const [db, template, packaged] = await Promise.all([
    loadAwsServiceSpec(),
    readFile(join(release.dir, 'template.json'), 'utf8'),
    packagedHead(),
  ]);
  replacing = (type) => {
    const resource = db.lookup('resource', 'cloudFormationType', 'equals', type).only();
    return Object.entries(resource.properties)
      .filter(([, property]) => property.causesReplacement === 'yes')
      .map(([name]) => name);
  };
  stored = JSON.parse(template);
  head = packaged;
}, 300_000);

describe(`an upgrade from release ${release.version} to HEAD`, () => {
  it('keeps every resource that holds data, replaces none of them, and retains each', () => {
    const kept = Object.entries(head.Resources).filter(([, r]) => DATA_TYPES.includes(r.Type));
    // The table, the signing key, the five queues and the cursor secret: the check has something to check.
    expect(kept.map(([id]) => id).sort()).toEqual(
      expect.arrayContaining([
        'NotificationsTable',
        'SigningKey',
        'DeliveryQueue',
        'DeadLetterQueue',
        'CursorSecret',
      ]),
    );
    expect(upgradeProblems(stored, head, replacing)).toEqual([]);
  });

  it('names the resource and the property when a change would replace the table (its key schema)', () => {
    const table = head.Resources.NotificationsTable as Resource;
    const planted = structuredClone(head) as { Resources: Record<string, Resource> };
    planted.Resources.NotificationsTable = {
      ...table,
      Properties: { ...table.Properties, KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }] },
    };
    expect(upgradeProblems(stored, planted, replacing)).toEqual([
      'NotificationsTable (AWS::DynamoDB::Table): KeySchema changed, and CloudFormation replaces the resource for it',
    ]);
  });

  it('names a queue that was renamed, and one that is no longer retained', () => {
    const planted = structuredClone(head) as { Resources: Record<string, Resource> };
    const { DeliveryQueue, ...rest } = planted.Resources;
    planted.Resources = {
      ...rest,
      NotificationsDeliveryQueue: { ...(DeliveryQueue as Resource), DeletionPolicy: 'Delete' },
    };
    expect(upgradeProblems(stored, planted, replacing)).toEqual([
      'DeliveryQueue (AWS::SQS::Queue) is gone: removed or renamed, CloudFormation would delete it',
      'NotificationsDeliveryQueue (AWS::SQS::Queue): DeletionPolicy is not Retain',
    ]);
  });
});
