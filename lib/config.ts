import { createNetworkPolicy, type NetworkPolicyMode } from './delivery/network-policy';

/**
 * Configuration, read once when a function starts. A missing or malformed setting stops the
 * function at start-up with a message naming it, rather than failing some request later.
 */
export type AuthMode = 'none' | 'iam' | 'jwt';

export interface Config {
  readonly serviceName: string;
  readonly serviceVersion: string;
  readonly stage: string;
  readonly tableName: string;
  /** When set, `UriLocation` is built from it instead of from the request's host. */
  readonly publicBaseUrl: string | undefined;
  readonly consumerAuth: AuthMode;
  readonly networkPolicy: { readonly mode: NetworkPolicyMode; readonly allowList: readonly string[] };
  readonly sanityCheckTimeoutMs: number;
  readonly deliveryTimeoutMs: number;
  readonly dedupTtlSeconds: number;
}

type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {}

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`environment variable ${name} is required`);
  return value;
}

function optional(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim();
  return value ? value : fallback;
}

function positiveInt(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0 || Number(raw) > max) {
    throw new ConfigError(`environment variable ${name} must be an integer from 1 to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function allowList(env: Env): string[] {
  const entries = optional(env, 'ENDPOINT_ALLOW_LIST', '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    createNetworkPolicy({ mode: 'public-only', allowList: entries });
  } catch (error) {
    throw new ConfigError(`environment variable ENDPOINT_ALLOW_LIST: ${(error as Error).message}`);
  }
  return entries;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = optional(env, name, fallback);
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(
      `environment variable ${name} must be one of ${allowed.join(', ')}, got "${value}"`,
    );
  }
  return value as T;
}

function baseUrl(env: Env): string | undefined {
  const raw = env.PUBLIC_BASE_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`environment variable PUBLIC_BASE_URL must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError('environment variable PUBLIC_BASE_URL must be an http or https URL');
  }
  return `${url.protocol}//${url.host}`;
}

export function loadConfig(env: Env): Config {
  const stage = optional(env, 'STAGE', 'local');
  const isLocal = stage === 'local';
  return {
    serviceName: optional(env, 'SERVICE_NAME', 'ocloud-notifications'),
    serviceVersion: optional(env, 'SERVICE_VERSION', '0.1.0'),
    stage,
    tableName: required(env, 'TABLE_NAME'),
    publicBaseUrl: baseUrl(env),
    consumerAuth: oneOf(env, 'CONSUMER_AUTH', ['none', 'iam', 'jwt'] as const, 'none'),
    networkPolicy: {
      mode: oneOf(
        env,
        'ENDPOINT_NETWORK_POLICY',
        ['public-only', 'allow-private'] as const,
        isLocal ? 'allow-private' : 'public-only',
      ),
      allowList: allowList(env),
    },
    sanityCheckTimeoutMs: positiveInt(env, 'SANITY_CHECK_TIMEOUT_MS', 2000, 60_000),
    deliveryTimeoutMs: positiveInt(env, 'DELIVERY_TIMEOUT_MS', 2000, 60_000),
    dedupTtlSeconds: positiveInt(env, 'DEDUP_TTL_SECONDS', 7 * 24 * 3600, 366 * 24 * 3600),
  };
}

let loaded: Config | undefined;

/** The process-wide configuration, loaded on first use and then kept. */
export function config(): Config {
  loaded ??= loadConfig(process.env);
  return loaded;
}
