import { version } from '../package.json';
import { parseCidr } from './net/ip';
import queues from './queue/queues.json';

/**
 * Configuration, each part read once per process; a missing or malformed setting throws a
 * ConfigError naming it. When each part is read:
 * - `Config`, the settings every function shares (the table, auth, network policy, time-outs), is
 *   read when lib/services.ts is loaded, that is in Lambda's init phase: a bad one fails the
 *   function's start (an init error in its log) instead of answering 500 to every request.
 * - A function's own settings (the queues, the signing key, the endpoint TLS material, the
 *   cursor secret, the webhook keys' schedule) are read when it first uses them, in its first
 *   invocation: a function is given only its own (serverless.yml), so the others cannot be read
 *   at every function's start. A bad one fails each invocation that needs it, with the message.
 * test/unit/config.test.ts holds both to this.
 */
export type AuthMode = 'none' | 'iam' | 'jwt';

/**
 * Where notifications may go: 'allow-private' is the local stage's (loopback, RFC 1918, CGNAT and
 * ULA allowed); link-local, multicast, unspecified and reserved ranges are refused in both.
 */
export type NetworkPolicyMode = 'public-only' | 'allow-private';

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
  /**
   * How far ahead of the service's clock an event's `time` may be. An event accepted from a
   * producer whose clock runs ahead becomes the current state, and every correct event after the
   * producer's clock is corrected counts as older until the service's clock passes it: this bounds
   * that freeze.
   */
  readonly eventTimeToleranceMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {}

function required(env: Env, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(`environment variable ${name} is required`);
  return value;
}

/** DynamoDB's rule for table names: 3 to 255 letters, digits, `_`, `-` and `.`. */
function tableName(env: Env): string {
  const name = required(env, 'TABLE_NAME');
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(name)) {
    throw new ConfigError(
      `environment variable TABLE_NAME must be 3 to 255 letters, digits, "_", "-" or ".", got "${name}"`,
    );
  }
  return name;
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
    for (const entry of entries) parseCidr(entry);
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

/** An absolute http or https URL, or a ConfigError naming the variable. */
function parseHttpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`environment variable ${name} must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`environment variable ${name} must be an http or https URL, got "${raw}"`);
  }
  return url;
}

function baseUrl(env: Env): string | undefined {
  const raw = env.PUBLIC_BASE_URL?.trim();
  if (!raw) return undefined;
  const url = parseHttpUrl('PUBLIC_BASE_URL', raw);
  return `${url.protocol}//${url.host}`;
}

/** `none` means one anonymous principal: fine on a developer's machine, never when deployed. */
function consumerAuth(env: Env, isLocal: boolean): AuthMode {
  const mode = oneOf(env, 'CONSUMER_AUTH', ['none', 'iam', 'jwt'] as const, isLocal ? 'none' : 'iam');
  if (mode === 'none' && !isLocal) {
    throw new ConfigError('environment variable CONSUMER_AUTH must be iam or jwt outside the local stage');
  }
  return mode;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** LOG_LEVEL, any case; anything else fails the start rather than logging at a level nobody chose. */
export function loadLogLevel(env: Env): LogLevel {
  const raw = optional(env, 'LOG_LEVEL', 'info').toLowerCase();
  const level = LOG_LEVELS.find((l) => l === raw);
  if (!level) {
    throw new ConfigError(
      `environment variable LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`,
    );
  }
  return level;
}

let loadedLogLevel: LogLevel | undefined;

/** The process-wide log level, read once. */
export function logLevel(): LogLevel {
  loadedLogLevel ??= loadLogLevel(process.env);
  return loadedLogLevel;
}

export function loadConfig(env: Env): Config {
  const stage = optional(env, 'STAGE', 'local');
  const isLocal = stage === 'local';
  return {
    serviceName: optional(env, 'SERVICE_NAME', 'ocloud-notifications'),
    serviceVersion: version,
    stage,
    tableName: tableName(env),
    publicBaseUrl: baseUrl(env),
    consumerAuth: consumerAuth(env, isLocal),
    networkPolicy: {
      mode: oneOf(
        env,
        'ENDPOINT_NETWORK_POLICY',
        ['public-only', 'allow-private'] as const,
        isLocal ? 'allow-private' : 'public-only',
      ),
      allowList: allowList(env),
    },
    // 1 s: the whole subscribe, this wait included, stays well inside the 2 s after which Red Hat's
    // client gives up (and, seeing no answer, may retry, meet a 409 and delete all it owns).
    sanityCheckTimeoutMs: positiveInt(env, 'SANITY_CHECK_TIMEOUT_MS', 1000, 60_000),
    deliveryTimeoutMs: positiveInt(env, 'DELIVERY_TIMEOUT_MS', 2000, 60_000),
    // 2 s: far above the skew of NTP- or PTP-disciplined clocks (milliseconds, and under 1 s after
    // a day of holdover at 10 ppm), yet a consumer is held on a wrong state for at most 2 s.
    eventTimeToleranceMs: positiveInt(env, 'EVENT_TIME_TOLERANCE_MS', 2000, 3_600_000),
  };
}

/**
 * Where every setting below is read from: the process's environment, unless a host of the service
 * names its own before any setting is read (the node agent's `--serve`, agent/serve/node-host.ts,
 * gives its node's settings beside the process's). Each part is then read once and kept.
 */
let source: Env = process.env;
let loaded: Config | undefined;

export function readSettingsFrom(env: Env): void {
  source = env;
  loaded = undefined;
  loadedDelivery = undefined;
  loadedQueues = undefined;
  loadedCursorSecret = undefined;
  loadedSigning = undefined;
  loadedEndpointTls = undefined;
  loadedWebhookKeys = undefined;
  loadedLimits = undefined;
}

/** The settings every function shares, loaded on first use (lib/services.ts: at init) and then kept. */
export function config(): Config {
  loaded ??= loadConfig(source);
  return loaded;
}

/**
 * The SQS queue URLs of delivery. Locally they are the queues of `npm start`'s SQS-speaking local
 * queue (scripts/local-queue.ts), `http://127.0.0.1:PORT/000000000000/<queue>`: a call goes to
 * its queue URL's origin, as it does to SQS's regional endpoint.
 */
export interface QueueConfig {
  readonly fanOutUrl: string;
  readonly deliveryUrl: string;
  readonly deadLetterUrl: string;
  /** Delete-all's background removal of retired subscriptions; set for the functions that use it. */
  readonly cleanupUrl: string | undefined;
}

/**
 * The settings of delivery, apart from `Config` because only the functions that enqueue or deliver
 * need them (a health check must not fail for a missing setting of theirs).
 */
export interface DeliveryConfig {
  /** How long a notification is retried before it is dead-lettered. */
  readonly retryWindowSeconds: number;
  /** Exponential back-off: the first retry waits about `backoffBaseMs`, none more than `backoffMaxMs`. */
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
}

function httpUrl(env: Env, name: string): string {
  const raw = required(env, name);
  parseHttpUrl(name, raw);
  return raw.replace(/\/+$/, '');
}

/** The variables of the queue URLs: lib/queue/queues.json, which serverless.yml and the local queue read. */
export function loadQueueConfig(env: Env): QueueConfig {
  const cleanup = queues.cleanup.urlVariable;
  return {
    fanOutUrl: httpUrl(env, queues['fan-out'].urlVariable),
    deliveryUrl: httpUrl(env, queues.delivery.urlVariable),
    deadLetterUrl: httpUrl(env, queues['dead-letter'].urlVariable),
    cleanupUrl: env[cleanup]?.trim() ? httpUrl(env, cleanup) : undefined,
  };
}

/** SQS keeps a message at most 14 days and hides it at most 12 hours at a time. */
const MAX_RETRY_WINDOW_SECONDS = 14 * 24 * 3600;
const MAX_BACKOFF_MS = 12 * 3600 * 1000;

export function loadDeliveryConfig(env: Env): DeliveryConfig {
  const backoffBaseMs = positiveInt(env, 'DELIVERY_BACKOFF_BASE_MS', 1000, 3_600_000);
  const backoffMaxMs = positiveInt(env, 'DELIVERY_BACKOFF_MAX_MS', 300_000, MAX_BACKOFF_MS);
  if (backoffMaxMs < backoffBaseMs) {
    throw new ConfigError(
      `environment variable DELIVERY_BACKOFF_MAX_MS (${backoffMaxMs}) must not be below DELIVERY_BACKOFF_BASE_MS (${backoffBaseMs})`,
    );
  }
  return {
    retryWindowSeconds: positiveInt(env, 'DELIVERY_RETRY_WINDOW_SECONDS', 3600, MAX_RETRY_WINDOW_SECONDS),
    backoffBaseMs,
    backoffMaxMs,
  };
}

let loadedDelivery: DeliveryConfig | undefined;

/** The delivery settings, loaded on first use by a function that enqueues or delivers, then kept. */
export function deliveryConfig(): DeliveryConfig {
  loadedDelivery ??= loadDeliveryConfig(source);
  return loadedDelivery;
}

let loadedQueues: QueueConfig | undefined;

/** The SQS queue URLs, loaded by the first send of a function that enqueues (the region's queues). */
export function queueConfig(): QueueConfig {
  loadedQueues ??= loadQueueConfig(source);
  return loadedQueues;
}

/**
 * The key that makes list cursors tamper-evident (HMAC-SHA256), apart from `Config` because only
 * the list functions need it. Deployed, it is the stack's generated secret; the local stage, where
 * nothing is secret, has a fixed one so that cursors survive a restart of `npm start`.
 */
const LOCAL_CURSOR_SECRET = 'local-stage-cursor-secret-not-for-deployment';

export function loadCursorSecret(env: Env): string {
  const raw = env.CURSOR_SECRET?.trim();
  if (!raw) {
    if (optional(env, 'STAGE', 'local') === 'local') return LOCAL_CURSOR_SECRET;
    throw new ConfigError('environment variable CURSOR_SECRET is required outside the local stage');
  }
  if (raw.length < 32) {
    throw new ConfigError('environment variable CURSOR_SECRET must be at least 32 characters long');
  }
  return raw;
}

let loadedCursorSecret: string | undefined;

export function cursorSecret(): string {
  loadedCursorSecret ??= loadCursorSecret(source);
  return loadedCursorSecret;
}

/** Where the data key that encrypts signing secrets comes from: a local file, or KMS when deployed. */
export type SigningKeySource =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'kms'; readonly keyId: string };

/** The settings of functions that sign notifications or keep signing secrets. */
export interface SigningConfig {
  readonly key: SigningKeySource;
  /** How long the previous secret still signs after a rotation. */
  readonly rotationGraceSeconds: number;
}

export function loadSigningConfig(env: Env): SigningConfig {
  const isLocal = optional(env, 'STAGE', 'local') === 'local';
  const source = oneOf(env, 'SIGNING_KEY_SOURCE', ['file', 'kms'] as const, isLocal ? 'file' : 'kms');
  // A Lambda's file system does not outlive the instance: a key there would orphan every secret.
  if (source === 'file' && !isLocal) {
    throw new ConfigError('environment variable SIGNING_KEY_SOURCE must be kms outside the local stage');
  }
  return {
    key:
      source === 'kms'
        ? { kind: 'kms', keyId: required(env, 'SIGNING_KMS_KEY_ID') }
        : { kind: 'file', path: optional(env, 'SIGNING_KEY_FILE', '.data/signing-key') },
    rotationGraceSeconds: positiveInt(env, 'SIGNING_ROTATION_GRACE_SECONDS', 24 * 3600, 30 * 24 * 3600),
  };
}

let loadedSigning: SigningConfig | undefined;

export function signingConfig(): SigningConfig {
  loadedSigning ??= loadSigningConfig(source);
  return loadedSigning;
}

/**
 * Where deliveries' TLS client identity and private CAs come from: a Secrets Manager secret when
 * deployed (JSON `{"certificate", "privateKey", "caCertificates"}`, all PEM), PEM files locally.
 */
export type EndpointTlsSource =
  | { readonly kind: 'secret'; readonly secretId: string }
  | { readonly kind: 'files'; readonly certFile: string | undefined; readonly keyFile: string | undefined };

export interface EndpointTlsConfig {
  readonly source: EndpointTlsSource;
  /** A PEM file of CAs trusted for endpoints beside Node's store (ENDPOINT_CA_FILE). */
  readonly caFile: string | undefined;
  /** How often the material is read again, so that a rotation takes effect without a redeploy. */
  readonly refreshSeconds: number;
}

export function loadEndpointTlsConfig(env: Env): EndpointTlsConfig {
  const secretId = env.ENDPOINT_TLS_SECRET?.trim();
  const certFile = env.ENDPOINT_CLIENT_CERT_FILE?.trim() || undefined;
  const keyFile = env.ENDPOINT_CLIENT_KEY_FILE?.trim() || undefined;
  if (secretId && (certFile || keyFile)) {
    throw new ConfigError(
      'environment variables ENDPOINT_TLS_SECRET and ENDPOINT_CLIENT_CERT_FILE/ENDPOINT_CLIENT_KEY_FILE exclude each other',
    );
  }
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new ConfigError(
      'environment variables ENDPOINT_CLIENT_CERT_FILE and ENDPOINT_CLIENT_KEY_FILE must be set together',
    );
  }
  return {
    source: secretId ? { kind: 'secret', secretId } : { kind: 'files', certFile, keyFile },
    caFile: env.ENDPOINT_CA_FILE?.trim() || undefined,
    refreshSeconds: positiveInt(env, 'ENDPOINT_TLS_REFRESH_SECONDS', 300, 24 * 3600),
  };
}

let loadedEndpointTls: EndpointTlsConfig | undefined;

export function endpointTlsConfig(): EndpointTlsConfig {
  loadedEndpointTls ??= loadEndpointTlsConfig(source);
  return loadedEndpointTls;
}

/** The ed25519 keys of `v1a` signatures: how often they rotate, how early the next is published. */
export interface WebhookKeyConfig {
  /** A key signs this long before the next one takes over. */
  readonly rotationSeconds: number;
  /** The next key is listed this long before it signs (consumers fetch the list within it). */
  readonly publishLeadSeconds: number;
  /** The previous key stays listed this long after the next one took over. */
  readonly overlapSeconds: number;
  /** How often a process reads the key list again (below the lead, so every process has the next key in time). */
  readonly refreshSeconds: number;
}

export function loadWebhookKeyConfig(env: Env): WebhookKeyConfig {
  const config = {
    rotationSeconds: positiveInt(env, 'WEBHOOK_KEY_ROTATION_SECONDS', 90 * 24 * 3600, 5 * 366 * 24 * 3600),
    publishLeadSeconds: positiveInt(env, 'WEBHOOK_KEY_PUBLISH_LEAD_SECONDS', 2 * 24 * 3600, 366 * 24 * 3600),
    overlapSeconds: positiveInt(env, 'WEBHOOK_KEY_OVERLAP_SECONDS', 24 * 3600, 366 * 24 * 3600),
    refreshSeconds: positiveInt(env, 'WEBHOOK_KEY_REFRESH_SECONDS', 300, 24 * 3600),
  };
  if (config.refreshSeconds >= config.publishLeadSeconds) {
    throw new ConfigError(
      `environment variable WEBHOOK_KEY_REFRESH_SECONDS (${config.refreshSeconds}) must be below WEBHOOK_KEY_PUBLISH_LEAD_SECONDS (${config.publishLeadSeconds}), or a process could sign with a key before it has read that key's successor`,
    );
  }
  if (config.publishLeadSeconds >= config.rotationSeconds) {
    throw new ConfigError(
      `environment variable WEBHOOK_KEY_PUBLISH_LEAD_SECONDS (${config.publishLeadSeconds}) must be below WEBHOOK_KEY_ROTATION_SECONDS (${config.rotationSeconds})`,
    );
  }
  return config;
}

let loadedWebhookKeys: WebhookKeyConfig | undefined;

export function webhookKeyConfig(): WebhookKeyConfig {
  loadedWebhookKeys ??= loadWebhookKeyConfig(source);
  return loadedWebhookKeys;
}

/**
 * The fleet's limits on one caller (docs/security.md): the quotas, read by the functions that
 * enforce them when they first do. Deployed, each is a stage parameter of the same name in
 * camelCase (serverless.yml); locally, `npm start` passes the variable from the shell.
 */
export interface LimitsConfig {
  /** At most this many live subscriptions per owner (SUBSCRIPTIONS_PER_OWNER). */
  readonly subscriptionsPerOwner: number;
  /** At most this many publishers registered by one producer principal (PUBLISHERS_PER_PRODUCER). */
  readonly publishersPerProducer: number;
  /** A publisher's events a second (PUBLISHER_EVENT_RATE), in bursts of at most PUBLISHER_EVENT_BURST. */
  readonly publisherEventRate: number;
  readonly publisherEventBurst: number;
  /** The breaker: an endpoint whose every attempt failed for this long is suspended (ENDPOINT_SUSPEND_AFTER_SECONDS). */
  readonly endpointSuspendAfterSeconds: number;
}

/** A positive number, decimals allowed (0.2: one every 5 s), at most `max`. */
function positiveNumber(env: Env, name: string, fallback: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw) || Number(raw) <= 0 || Number(raw) > max) {
    throw new ConfigError(
      `environment variable ${name} must be a number above 0 and at most ${max}, got "${raw}"`,
    );
  }
  return Number(raw);
}

export function loadLimitsConfig(env: Env): LimitsConfig {
  return {
    subscriptionsPerOwner: positiveInt(env, 'SUBSCRIPTIONS_PER_OWNER', 1000, 10_000_000),
    publishersPerProducer: positiveInt(env, 'PUBLISHERS_PER_PRODUCER', 100, 10_000_000),
    // 5 a second: the agent samples its daemons every 200 ms, so a value flapping at every sample
    // (a servo crossing its threshold) is the most one address can change; bursts of 20 take a
    // node's start-up and a short outage's backlog at once (docs/security.md: Rates).
    publisherEventRate: positiveNumber(env, 'PUBLISHER_EVENT_RATE', 5, 1000),
    publisherEventBurst: positiveInt(env, 'PUBLISHER_EVENT_BURST', 20, 100_000),
    // A day: a consumer down for a maintenance night keeps its notifications retried (and dead-
    // lettered by the retry window); one gone for good stops costing an attempt per notification.
    endpointSuspendAfterSeconds: positiveInt(
      env,
      'ENDPOINT_SUSPEND_AFTER_SECONDS',
      24 * 3600,
      366 * 24 * 3600,
    ),
  };
}

let loadedLimits: LimitsConfig | undefined;

export function limitsConfig(): LimitsConfig {
  loadedLimits ??= loadLimitsConfig(source);
  return loadedLimits;
}
