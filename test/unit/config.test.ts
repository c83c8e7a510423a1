import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  loadConfig,
  loadEndpointTlsConfig,
  loadLogLevel,
  loadSigningConfig,
  loadWebhookKeyConfig,
} from '../../lib/config';
import { version as packageVersion } from '../../package.json';
import { thrown } from '../support/errors';

type Env = Record<string, string | undefined>;

const BASE_ENV: Env = { TABLE_NAME: 'ocloud-notifications-test' };

function load(extra: Env = {}) {
  return loadConfig({ ...BASE_ENV, ...extra });
}

/** Expects loadConfig to fail fast with a ConfigError whose message names `variable`. */
function expectConfigError(env: Env, variable: string): ConfigError {
  const error = thrown(() => loadConfig(env), ConfigError);
  expect(error).toBeInstanceOf(Error);
  expect(error.message).toContain(variable);
  return error;
}

describe('loadConfig: TABLE_NAME', () => {
  const missing: ReadonlyArray<readonly [string, Env]> = [
    ['an empty environment', {}],
    ['TABLE_NAME undefined', { TABLE_NAME: undefined }],
    ['TABLE_NAME empty', { TABLE_NAME: '' }],
    ['TABLE_NAME only spaces', { TABLE_NAME: '   ' }],
    ['TABLE_NAME only a tab and a newline', { TABLE_NAME: '\t\n' }],
    ['other settings but no TABLE_NAME', { STAGE: 'prod', CONSUMER_AUTH: 'iam' }],
  ];

  it.each(missing)('is required: %s', (_name, env) => {
    expectConfigError(env, 'TABLE_NAME');
  });

  it('is read and trimmed', () => {
    expect(loadConfig({ TABLE_NAME: '  my-table  ' }).tableName).toBe('my-table');
  });

  it.each([
    ['a space', 'my table'],
    ['a slash', 'stage/table'],
    ['under 3 characters', 'ab'],
    ['over 255 characters', 't'.repeat(256)],
  ])('refuses a name DynamoDB would refuse on every request: %s', (_name, value) => {
    const error = expectConfigError({ TABLE_NAME: value }, 'TABLE_NAME');
    expect(error.message).toContain(value.slice(0, 20));
  });
});

describe('when a function reads its configuration', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  /** A handler module loaded afresh, as Lambda's init phase loads it. */
  async function initFunction(): Promise<unknown> {
    vi.resetModules();
    return import('../../functions/http/list-publishers');
  }

  it('loads with a valid environment', async () => {
    await expect(initFunction()).resolves.toHaveProperty('handler');
  });

  it.each([
    ['TABLE_NAME', ''],
    ['TABLE_NAME', 'not a table'],
    ['SANITY_CHECK_TIMEOUT_MS', 'soon'],
    ['ENDPOINT_NETWORK_POLICY', 'open'],
  ])('fails at init, naming the setting, when a shared setting is bad: %s=%j', async (variable, value) => {
    vi.stubEnv(variable, value);
    await expect(initFunction()).rejects.toThrow(variable);
  });

  it("reads a function's own settings when it first uses them: they fail its invocations, not its init", async () => {
    vi.stubEnv('DELIVERY_BACKOFF_BASE_MS', 'soon');
    await expect(initFunction()).resolves.toHaveProperty('handler');
    const services = await import('../../lib/services');
    expect(() => services.deliveryBatch()).toThrow('DELIVERY_BACKOFF_BASE_MS');
  });
});

describe('loadConfig: defaults', () => {
  it('fills in every default when only TABLE_NAME is set', () => {
    expect(load()).toEqual({
      serviceName: 'ocloud-notifications',
      serviceVersion: packageVersion,
      stage: 'local',
      tableName: 'ocloud-notifications-test',
      publicBaseUrl: undefined,
      consumerAuth: 'none',
      networkPolicy: { mode: 'allow-private', allowList: [] },
      sanityCheckTimeoutMs: 1000,
      deliveryTimeoutMs: 2000,
      eventTimeToleranceMs: 2000,
    });
  });

  it('treats empty and blank values as unset', () => {
    const config = load({
      STAGE: '',
      SERVICE_NAME: ' ',
      PUBLIC_BASE_URL: '  ',
      CONSUMER_AUTH: '',
      ENDPOINT_NETWORK_POLICY: ' ',
      ENDPOINT_ALLOW_LIST: '',
      SANITY_CHECK_TIMEOUT_MS: '',
      DELIVERY_TIMEOUT_MS: ' ',
      EVENT_TIME_TOLERANCE_MS: '',
    });
    expect(config).toEqual(load());
  });

  it('does not modify the environment it reads', () => {
    const env: Env = { ...BASE_ENV, STAGE: 'prod', ENDPOINT_ALLOW_LIST: ' 10.0.0.1 , 10.0.0.2 ' };
    const copy = { ...env };
    loadConfig(env);
    expect(env).toEqual(copy);
  });

  it('ignores unrelated variables', () => {
    expect(load({ PATH: '/usr/bin', AWS_REGION: 'eu-west-1', FOO: 'bar' })).toEqual(load());
  });

  it("reads SERVICE_NAME; the version is the package's, whatever the environment says", () => {
    const config = load({ SERVICE_NAME: ' notify ', SERVICE_VERSION: '2.3.4' });
    expect(config.serviceName).toBe('notify');
    expect(config.serviceVersion).toBe(packageVersion);
  });
});

describe('loadLogLevel', () => {
  it('is info by default and reads any case', () => {
    expect(loadLogLevel({})).toBe('info');
    expect(loadLogLevel({ LOG_LEVEL: ' WARN ' })).toBe('warn');
    expect(loadLogLevel({ LOG_LEVEL: 'debug' })).toBe('debug');
  });

  it('fails fast on a level it does not know, instead of logging at info', () => {
    expect(() => loadLogLevel({ LOG_LEVEL: 'verbose' })).toThrow(
      'environment variable LOG_LEVEL must be one of debug, info, warn, error, got "verbose"',
    );
  });
});

describe('loadConfig: stage and network policy', () => {
  const stages: ReadonlyArray<readonly [Env, string, string]> = [
    // [env, stage, default network policy]
    [{}, 'local', 'allow-private'],
    [{ STAGE: 'local' }, 'local', 'allow-private'],
    [{ STAGE: '  local  ' }, 'local', 'allow-private'],
    [{ STAGE: 'prod' }, 'prod', 'public-only'],
    [{ STAGE: 'dev' }, 'dev', 'public-only'],
    [{ STAGE: 'staging' }, 'staging', 'public-only'],
    [{ STAGE: 'test' }, 'test', 'public-only'],
    [{ STAGE: 'localhost' }, 'localhost', 'public-only'],
  ];

  it.each(stages)('%j → stage %s, policy %s', (env, stage, mode) => {
    const config = load(env);
    expect(config.stage).toBe(stage);
    expect(config.networkPolicy.mode).toBe(mode);
  });

  const overrides: ReadonlyArray<readonly [string, string]> = [
    ['local', 'public-only'],
    ['local', 'allow-private'],
    ['prod', 'allow-private'],
    ['prod', 'public-only'],
  ];

  it.each(overrides)('stage %s with ENDPOINT_NETWORK_POLICY=%s uses the setting', (stage, mode) => {
    expect(load({ STAGE: stage, ENDPOINT_NETWORK_POLICY: mode }).networkPolicy.mode).toBe(mode);
  });

  it('trims ENDPOINT_NETWORK_POLICY', () => {
    expect(load({ STAGE: 'prod', ENDPOINT_NETWORK_POLICY: ' allow-private ' }).networkPolicy.mode).toBe(
      'allow-private',
    );
  });

  const badModes = [
    'private',
    'public',
    'PUBLIC-ONLY',
    'Allow-Private',
    'allow_private',
    'none',
    'allow-private,public-only',
  ];

  it.each(badModes)('refuses ENDPOINT_NETWORK_POLICY=%j, naming it', (mode) => {
    expectConfigError({ ...BASE_ENV, ENDPOINT_NETWORK_POLICY: mode }, 'ENDPOINT_NETWORK_POLICY');
  });
});

describe('loadConfig: ENDPOINT_ALLOW_LIST', () => {
  const lists: ReadonlyArray<readonly [string, string[]]> = [
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8,192.168.1.5', ['10.0.0.0/8', '192.168.1.5']],
    [' 10.0.0.0/8 , 192.168.1.5 ', ['10.0.0.0/8', '192.168.1.5']],
    ['10.0.0.0/8,,192.168.1.5,', ['10.0.0.0/8', '192.168.1.5']],
    [',10.0.0.1', ['10.0.0.1']],
    [', ,', []],
    ['fd00::/8,::1,127.0.0.1/32', ['fd00::/8', '::1', '127.0.0.1/32']],
  ];

  it.each(lists)('%j → %j', (raw, expected) => {
    expect(load({ ENDPOINT_ALLOW_LIST: raw }).networkPolicy.allowList).toEqual(expected);
  });

  it('is empty by default', () => {
    expect(load().networkPolicy.allowList).toEqual([]);
  });

  // "A missing or malformed setting stops the function at start-up with a message naming it" (lib/config.ts).
  it('refuses a malformed entry at load time, naming ENDPOINT_ALLOW_LIST', () => {
    expectConfigError({ ...BASE_ENV, ENDPOINT_ALLOW_LIST: '10.0.0.1,not-an-address' }, 'ENDPOINT_ALLOW_LIST');
    expectConfigError({ ...BASE_ENV, ENDPOINT_ALLOW_LIST: '10.0.0.0/33' }, 'ENDPOINT_ALLOW_LIST');
  });
});

describe('loadConfig: CONSUMER_AUTH', () => {
  it.each(['none', 'iam', 'jwt'])('accepts %s', (mode) => {
    expect(load({ CONSUMER_AUTH: mode }).consumerAuth).toBe(mode);
  });

  it('trims the value', () => {
    expect(load({ CONSUMER_AUTH: ' iam ' }).consumerAuth).toBe('iam');
  });

  it.each(['basic', 'IAM', 'None', 'oauth', 'true', 'iam,jwt'])(
    'refuses %j, naming CONSUMER_AUTH',
    (mode) => {
      expectConfigError({ ...BASE_ENV, CONSUMER_AUTH: mode }, 'CONSUMER_AUTH');
    },
  );

  it('defaults to none locally and to iam in a deployed stage', () => {
    expect(load().consumerAuth).toBe('none');
    expect(load({ STAGE: 'prod' }).consumerAuth).toBe('iam');
  });

  it('refuses none outside the local stage: one anonymous principal is for a developer machine', () => {
    expectConfigError({ ...BASE_ENV, STAGE: 'prod', CONSUMER_AUTH: 'none' }, 'CONSUMER_AUTH');
  });
});

describe('loadConfig: positive integers', () => {
  const variables: ReadonlyArray<
    readonly [string, 'sanityCheckTimeoutMs' | 'deliveryTimeoutMs' | 'eventTimeToleranceMs']
  > = [
    ['SANITY_CHECK_TIMEOUT_MS', 'sanityCheckTimeoutMs'],
    ['DELIVERY_TIMEOUT_MS', 'deliveryTimeoutMs'],
    ['EVENT_TIME_TOLERANCE_MS', 'eventTimeToleranceMs'],
  ];

  const good: ReadonlyArray<readonly [string, number]> = [
    ['1', 1],
    ['250', 250],
    ['5000', 5000],
    [' 3000 ', 3000],
    ['0100', 100],
    ['60000', 60000],
  ];
  const goodCases = variables.flatMap(([name, key]) => good.map(([raw, n]) => [name, key, raw, n] as const));

  it.each(goodCases)('%s (%s) = %j → %d', (name, key, raw, n) => {
    expect(load({ [name]: raw })[key]).toBe(n);
  });

  const bad = [
    '0',
    '00',
    '-1',
    '-100',
    '1.5',
    '2.0',
    'abc',
    '2s',
    '2000ms',
    '1e3',
    '0x10',
    '+5',
    '1 000',
    'NaN',
    'Infinity',
  ];
  const badCases = variables.flatMap(([name]) => bad.map((raw) => [name, raw] as const));

  // Node turns timer delays over 2^31-1 ms into 1 ms, so an absurd time-out would fire at once.
  it.each([
    ['SANITY_CHECK_TIMEOUT_MS', '60001'],
    ['DELIVERY_TIMEOUT_MS', '3000000000'],
    ['EVENT_TIME_TOLERANCE_MS', String(3_600_001)],
  ])('refuses %s = %s, above its maximum', (name, raw) => {
    expectConfigError({ ...BASE_ENV, [name]: raw }, name);
  });

  it.each(badCases)('%s = %j fails fast naming the variable', (name, raw) => {
    const error = expectConfigError({ ...BASE_ENV, [name]: raw }, name);
    expect(error.message).toContain(raw.trim());
  });
});

describe('loadConfig: PUBLIC_BASE_URL', () => {
  const urls: ReadonlyArray<readonly [string, string]> = [
    ['https://notify.example.com', 'https://notify.example.com'],
    ['https://notify.example.com/', 'https://notify.example.com'],
    ['https://notify.example.com/api/ocloudNotifications/v2', 'https://notify.example.com'],
    ['https://notify.example.com/some/path?x=1#frag', 'https://notify.example.com'],
    ['  https://notify.example.com/  ', 'https://notify.example.com'],
    ['http://localhost:3000/', 'http://localhost:3000'],
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['https://notify.example.com:8443/x', 'https://notify.example.com:8443'],
    ['https://notify.example.com:443/', 'https://notify.example.com'],
    ['http://notify.example.com:80/', 'http://notify.example.com'],
    ['HTTPS://Notify.Example.COM/', 'https://notify.example.com'],
    ['http://[::1]:3000/', 'http://[::1]:3000'],
  ];

  it.each(urls)('%j → %s', (raw, origin) => {
    expect(load({ PUBLIC_BASE_URL: raw }).publicBaseUrl).toBe(origin);
  });

  it('is undefined when unset', () => {
    expect(load().publicBaseUrl).toBeUndefined();
    expect(load({ PUBLIC_BASE_URL: '' }).publicBaseUrl).toBeUndefined();
  });

  const bad = [
    'notify.example.com',
    '/api/ocloudNotifications/v2',
    'not a url',
    'ftp://notify.example.com',
    'mailto:ops@example.com',
    'file:///tmp',
  ];

  it.each(bad)('refuses %j, naming PUBLIC_BASE_URL', (raw) => {
    expectConfigError({ ...BASE_ENV, PUBLIC_BASE_URL: raw }, 'PUBLIC_BASE_URL');
  });
});

describe('loadConfig: the first problem is reported even with other settings valid', () => {
  const cases: ReadonlyArray<readonly [Env, string]> = [
    [
      { TABLE_NAME: 'table', STAGE: 'prod', CONSUMER_AUTH: 'iam', DELIVERY_TIMEOUT_MS: 'soon' },
      'DELIVERY_TIMEOUT_MS',
    ],
    [{ TABLE_NAME: 'table', STAGE: 'prod', ENDPOINT_NETWORK_POLICY: 'open' }, 'ENDPOINT_NETWORK_POLICY'],
    [
      { TABLE_NAME: 'table', PUBLIC_BASE_URL: 'example.com', EVENT_TIME_TOLERANCE_MS: '60' },
      'PUBLIC_BASE_URL',
    ],
    [{ STAGE: 'prod', PUBLIC_BASE_URL: 'https://notify.example.com' }, 'TABLE_NAME'],
  ];

  it.each(cases)('%j → names %s', (env, variable) => {
    expectConfigError(env, variable);
  });
});

describe('loadSigningConfig', () => {
  it('locally: a key file under .data/ and a 24 h grace period', () => {
    expect(loadSigningConfig({})).toEqual({
      key: { kind: 'file', path: '.data/signing-key' },
      rotationGraceSeconds: 86_400,
    });
    expect(loadSigningConfig({ SIGNING_KEY_FILE: '/tmp/k', SIGNING_ROTATION_GRACE_SECONDS: '60' })).toEqual({
      key: { kind: 'file', path: '/tmp/k' },
      rotationGraceSeconds: 60,
    });
  });

  it('deployed: KMS, whose key id is then required', () => {
    expect(loadSigningConfig({ STAGE: 'prod', SIGNING_KMS_KEY_ID: 'arn:aws:kms:x' }).key).toEqual({
      kind: 'kms',
      keyId: 'arn:aws:kms:x',
    });
    expect(thrown(() => loadSigningConfig({ STAGE: 'prod' }), ConfigError).message).toBe(
      'environment variable SIGNING_KMS_KEY_ID is required',
    );
  });

  it('refuses a key file outside the local stage, an unknown source and a grace period out of range', () => {
    expect(
      thrown(() => loadSigningConfig({ STAGE: 'prod', SIGNING_KEY_SOURCE: 'file' }), ConfigError).message,
    ).toMatch(/SIGNING_KEY_SOURCE must be kms outside the local stage/);
    expect(thrown(() => loadSigningConfig({ SIGNING_KEY_SOURCE: 'vault' }), ConfigError).message).toMatch(
      /SIGNING_KEY_SOURCE must be one of file, kms/,
    );
    expect(
      thrown(() => loadSigningConfig({ SIGNING_ROTATION_GRACE_SECONDS: '0' }), ConfigError).message,
    ).toMatch(/SIGNING_ROTATION_GRACE_SECONDS must be an integer from 1 to 2592000/);
  });
});

describe('loadEndpointTlsConfig', () => {
  it('reads files locally, a secret when deployed, and refreshes every 5 minutes by default', () => {
    expect(loadEndpointTlsConfig({})).toEqual({
      source: { kind: 'files', certFile: undefined, keyFile: undefined },
      caFile: undefined,
      refreshSeconds: 300,
    });
    expect(
      loadEndpointTlsConfig({
        ENDPOINT_TLS_SECRET: 'arn:aws:secretsmanager:…:secret:tls',
        ENDPOINT_TLS_REFRESH_SECONDS: '60',
      }),
    ).toMatchObject({
      source: { kind: 'secret', secretId: 'arn:aws:secretsmanager:…:secret:tls' },
      refreshSeconds: 60,
    });
  });

  it.each([
    [{ ENDPOINT_CLIENT_CERT_FILE: 'client.pem' }, 'ENDPOINT_CLIENT_KEY_FILE'],
    [
      { ENDPOINT_TLS_SECRET: 'arn', ENDPOINT_CLIENT_CERT_FILE: 'c', ENDPOINT_CLIENT_KEY_FILE: 'k' },
      'ENDPOINT_TLS_SECRET',
    ],
    [{ ENDPOINT_TLS_REFRESH_SECONDS: '0' }, 'ENDPOINT_TLS_REFRESH_SECONDS'],
  ])('refuses %j, naming %s', (env, variable) => {
    expect(thrown(() => loadEndpointTlsConfig(env), ConfigError).message).toContain(variable);
  });
});

describe('loadWebhookKeyConfig', () => {
  it('rotates every 90 days, lists the next key 2 days ahead and the previous 1 day after', () => {
    expect(loadWebhookKeyConfig({})).toEqual({
      rotationSeconds: 90 * 86400,
      publishLeadSeconds: 2 * 86400,
      overlapSeconds: 86400,
      refreshSeconds: 300,
    });
  });

  it('refuses a refresh no shorter than the lead, and a lead no shorter than the rotation', () => {
    const refresh = thrown(
      () =>
        loadWebhookKeyConfig({
          WEBHOOK_KEY_REFRESH_SECONDS: '3600',
          WEBHOOK_KEY_PUBLISH_LEAD_SECONDS: '3600',
        }),
      ConfigError,
    );
    expect(refresh.message).toContain('WEBHOOK_KEY_REFRESH_SECONDS');
    const lead = thrown(
      () =>
        loadWebhookKeyConfig({
          WEBHOOK_KEY_ROTATION_SECONDS: '86400',
          WEBHOOK_KEY_PUBLISH_LEAD_SECONDS: '86400',
        }),
      ConfigError,
    );
    expect(lead.message).toContain('WEBHOOK_KEY_PUBLISH_LEAD_SECONDS');
  });
});

describe('the limits (docs/security.md)', () => {
  it('has the documented defaults, and takes decimals for the rate', async () => {
    const { loadLimitsConfig } = await import('../../lib/config');
    expect(loadLimitsConfig({})).toEqual({
      subscriptionsPerOwner: 1000,
      publishersPerProducer: 100,
      publisherEventRate: 5,
      publisherEventBurst: 20,
      endpointSuspendAfterSeconds: 86_400,
    });
    expect(loadLimitsConfig({ PUBLISHER_EVENT_RATE: '0.2' }).publisherEventRate).toBe(0.2);
  });

  it('refuses a malformed one, naming it', async () => {
    const { loadLimitsConfig } = await import('../../lib/config');
    expect(() => loadLimitsConfig({ PUBLISHER_EVENT_RATE: '0' })).toThrow(
      'environment variable PUBLISHER_EVENT_RATE must be a number above 0 and at most 1000, got "0"',
    );
    expect(() => loadLimitsConfig({ SUBSCRIPTIONS_PER_OWNER: 'many' })).toThrow(
      'environment variable SUBSCRIPTIONS_PER_OWNER must be an integer from 1 to 10000000, got "many"',
    );
  });
});
