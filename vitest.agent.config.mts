import { defineConfig } from 'vitest/config';

/**
 * `npm run test:agent`: the node agent against the real ptp4l, gpsd, chronyd and synce4l, its
 * systemd unit, DaemonSet and image (root, linuxptp, gpsd, chrony, libnl, systemd, podman,
 * mmdebstrap; skipped with the reason where they are missing). It starts its own `npm start`, so it needs
 * none of the main suite's set-up.
 */
export default defineConfig({
  test: {
    include: ['test/agent/daemons/**/*.test.ts'],
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      AWS_EMF_ENVIRONMENT: 'Local',
    },
    hookTimeout: 300_000,
    testTimeout: 240_000,
    // One file at a time: several build the agent's package into dist/, and the daemons' timings want the cores.
    fileParallelism: false,
    silent: 'passed-only',
  },
});
