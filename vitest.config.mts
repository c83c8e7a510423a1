import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The node agent's real-daemon tests need root, ptp4l and gpsd: npm run test:agent.
    exclude: [...configDefaults.exclude, 'test/agent/daemons/**'],
    // One in-memory DynamoDB Local (free port) with the table for the whole run; its endpoint and
    // table name reach process.env in each worker before any lib/ module is imported.
    globalSetup: ['test/support/dynamodb.ts'],
    setupFiles: ['test/support/env.ts', 'test/support/quiet-logs.ts'],
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      STAGE: 'local',
      LOG_LEVEL: 'warn',
      // aws-embedded-metrics (lib/metrics.ts): the Local environment, plain EMF lines on stdout; it
      // never probes the ECS or EC2 metadata endpoints. Read when the library is first imported.
      AWS_EMF_ENVIRONMENT: 'Local',
    },
    hookTimeout: 90_000,
    // Console output only for tests that fail (the logger's stdout lines: test/support/quiet-logs.ts).
    silent: 'passed-only',
    testTimeout: 30_000,
  },
});
