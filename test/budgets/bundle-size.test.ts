/**
 * The exact byte budget on what we write: each function's bundle, built as `serverless package`
 * builds it (esbuild.config.cjs), holds at most OWN_CODE_BUDGET_KIB of our own code (lib/,
 * functions/) and middy. The AWS SDK and the other packages are the platform's and are not
 * budgeted here (test/stack/package.test.ts holds the whole zip to Lambda's limits).
 */
import { describe, expect, it } from 'vitest';
import { bundle, serverlessFunctions } from '../../bench/common.mjs';

/** Raised only with the measured size + 10% and the reason in docs/benchmarks.md: it guards, it does not shape. */
const OWN_CODE_BUDGET_KIB = 80;

/** The bytes of a bundle that are our own code or middy. */
const ownCodeBytes = (inputs: [string, { bytesInOutput: number }][]) =>
  inputs
    .filter(([path]) => !path.includes('node_modules/') || /node_modules\/@middy\//.test(path))
    .reduce((sum, [, { bytesInOutput }]) => sum + bytesInOutput, 0);

describe(`each function's own code and middy (at most ${OWN_CODE_BUDGET_KIB} KiB)`, async () => {
  const functions = Object.entries(await serverlessFunctions());
  it.each(functions)(
    '%s',
    async (_name, source) => {
      const { inputs } = await bundle(source);
      const kib = ownCodeBytes(inputs) / 1024;
      expect(kib, `${source}: own code and middy ${kib.toFixed(1)} KiB`).toBeLessThanOrEqual(
        OWN_CODE_BUDGET_KIB,
      );
      expect(kib).toBeGreaterThan(1);
    },
    60_000,
  );
});
