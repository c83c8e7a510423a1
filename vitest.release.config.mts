import { defineConfig } from 'vitest/config';
import base from './vitest.config.mts';

/**
 * `npm run release` only (scripts/release.ts): the main suite's set-up (DynamoDB Local, a table per
 * file) for the one file that writes a release's stored items (test/upgrade/write-release-items.ts).
 */
export default defineConfig({ test: { ...base.test, include: ['test/upgrade/write-release-items.ts'] } });
