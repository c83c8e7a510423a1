/**
 * The releases' stored fixtures (docs/deploy.md: Upgrades): `npm run release` writes, for each
 * release, the CloudFormation template it packaged (`template.json`) and one item of each kind its
 * handlers wrote (`items.json`, test/upgrade/write-release-items.ts). The upgrade tests hold HEAD
 * to the newest of them, so a clean checkout needs no git tag.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { compareVersions } from '../../scripts/release';

export const RELEASES_DIR = fileURLToPath(new URL('./releases', import.meta.url));

/** What a release's handlers wrote, and what its user saw while they wrote it. */
export interface ReleaseItems {
  readonly version: string;
  /** The data key (base64) the secrets in the items are sealed under: the local stage's file key. */
  readonly signingDataKey: string;
  readonly node: string;
  readonly publisherId: string;
  /** The event the publisher published: the state, delivered to `delivered`, refused by `deadLettered`. */
  readonly event: { readonly id: string; readonly time: string; readonly source: string };
  readonly delivered: StoredSubscription;
  readonly deadLettered: StoredSubscription;
  /** The table's items as a Scan returns them (DynamoDB JSON, so sets and numbers keep their types). */
  readonly items: Record<string, AttributeValue>[];
}

export interface StoredSubscription {
  readonly subscriptionId: string;
  readonly endpointUri: string;
  readonly signingSecret: string;
}

/** The newest stored release (by semantic version), with the path of its folder. */
export function latestRelease(): { version: string; dir: string } {
  const [version] = readdirSync(RELEASES_DIR).sort(compareVersions).reverse();
  if (!version) throw new Error(`no stored release in ${RELEASES_DIR}: npm run release writes one`);
  return { version, dir: join(RELEASES_DIR, version) };
}

export function releaseItems(dir: string): ReleaseItems {
  return JSON.parse(readFileSync(join(dir, 'items.json'), 'utf8')) as ReleaseItems;
}
