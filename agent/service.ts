/**
 * The agent's side of the O-Cloud Notification API: registering its publishers and posting the
 * outbox's events in order, signed as the stage requires: SigV4 with the standard AWS credential
 * chain (`iam`, the producer routes of every deployed stage), a bearer token (`jwt`), or nothing
 * (`none`, the local stage).
 */
import { readFileSync } from 'node:fs';
import { type Backoff, backoffMs } from '../lib/backoff';
import { BASE_PATH as API_PATH } from '../lib/http/base-path';
import { version } from '../package.json';
import type { Outbox, QueuedEvent } from './outbox';
import { Pause } from './pause';
import { requestSigner } from './sign-request';

export type Auth =
  | { readonly kind: 'none' }
  | { readonly kind: 'iam'; readonly region: string }
  /** The token is read from the file on every request, so a rotated token is picked up. */
  | { readonly kind: 'jwt'; readonly tokenFile: string };

export interface Answer {
  readonly status: number;
  readonly body: unknown;
  /** The answer's `Retry-After` (delta seconds) in ms: a publisher over its rate (429), a 503. */
  readonly retryAfterMs?: number | undefined;
}

const REQUEST_TIMEOUT_MS = 5000;
/** Every request names the agent's release, so the region's access logs show which agents a fleet runs. */
export const AGENT_USER_AGENT = `ocloud-node-agent/${version}`;
/**
 * Between rounds while the service cannot take events: 200 ms doubling to at most 5 s, with equal
 * jitter (lib/backoff.ts). Equal rather than full: an agent never comes back faster than half its
 * step, and the jitter keeps a site's agents, whose outage began at the same moment, from retrying
 * in lock-step when the service returns. Short and capped low, unlike a notification's back-off: the
 * events wait on the node's disk, and a state the service does not have yet is a state its
 * consumers do not see.
 */
const SEND_BACKOFF: Backoff = { baseMs: 200, maxMs: 5000 };

/**
 * `--service` as a user gives it: the origin (`http://127.0.0.1:3000`, a stage's
 * `https://…execute-api…amazonaws.com`) or the API base `npm start` prints
 * (`…/api/ocloudNotifications/v2`); without the API's own path it is appended.
 */
export function serviceOrigin(serviceUrl: string): string {
  const trimmed = serviceUrl.replace(/\/+$/, '');
  return trimmed.endsWith(API_PATH) ? trimmed.slice(0, -API_PATH.length) : trimmed;
}

export class ServiceClient {
  private readonly base: URL;
  private readonly signer: ReturnType<typeof requestSigner> | undefined;

  constructor(
    serviceUrl: string,
    private readonly auth: Auth,
  ) {
    this.base = new URL(`${serviceOrigin(serviceUrl)}${API_PATH}`);
    this.signer = auth.kind === 'iam' ? requestSigner({ region: auth.region }) : undefined;
  }

  get url(): string {
    return this.base.href;
  }

  /**
   * Rejects only when the service cannot be reached or does not answer in time. The hard deadline
   * beside fetch's own abort signal makes sure no request, however it stalls, holds the outbox.
   */
  request(method: string, path: string, body?: unknown): Promise<Answer> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error('no answer', { cause: new Error(`no answer within ${REQUEST_TIMEOUT_MS + 1000} ms`) }),
          ),
        REQUEST_TIMEOUT_MS + 1000,
      );
    });
    return Promise.race([this.exchange(method, path, body), deadline]).finally(() => clearTimeout(timer));
  }

  private async exchange(method: string, path: string, body?: unknown): Promise<Answer> {
    const url = new URL(`${this.base.pathname}${path}`, this.base);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers = await this.headers(method, url, text);
    const response = await fetch(url, {
      method,
      headers,
      body: text,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const answer = await response.text();
    let parsed: unknown = answer;
    try {
      parsed = answer ? JSON.parse(answer) : undefined;
    } catch {
      // a proxy's page: kept as text for the log
    }
    const retryAfter = response.headers.get('retry-after');
    const retryAfterMs = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : undefined;
    return { status: response.status, body: parsed, retryAfterMs };
  }

  private async headers(method: string, url: URL, body: string | undefined): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      'user-agent': AGENT_USER_AGENT,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    if (this.auth.kind === 'jwt') {
      return { ...headers, authorization: `Bearer ${readFileSync(this.auth.tokenFile, 'utf8').trim()}` };
    }
    if (!this.signer) return headers;
    // fetch sets host itself from the URL, to the same value.
    const { host: _host, ...signed } = await this.signer({
      method,
      url: url.href,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    return signed;
  }
}

/**
 * Sends the outbox's events, each address's oldest first, and removes each once the service has
 * taken it (2xx); keeps it and tries again with back-off while the service cannot be reached or
 * answers 408, 429 or 5xx. A 404 means the publisher is gone: it is registered again. Any other
 * answer is a refusal that no retry changes; the event is logged and dropped so the rest can go.
 */
export class Sender {
  private readonly publisherIds = new Map<string, string>();
  private running = false;
  private readonly pause = new Pause();
  private stopped = false;
  /** Why the service cannot take events now (logged when it changes), or undefined. */
  private outage: string | undefined;
  /** The last refusal of a registration, logged once rather than on every retry. */
  private refusal: string | undefined;
  /** The longest `Retry-After` of the round's answers: the next round waits at least that. */
  private retryAfterMs = 0;

  constructor(
    private readonly client: ServiceClient,
    private readonly outbox: Outbox,
    private readonly log: (line: string) => void,
    private readonly onAccepted: (sent: QueuedEvent, status: number) => void = () => undefined,
    /** Logs every retry too (LOG_LEVEL=debug), not only an outage's start and end. */
    private readonly verbose = false,
  ) {}

  /** The service's API base. */
  get url(): string {
    return this.client.url;
  }

  /** Why the service cannot take events now, or undefined while it does. */
  get problem(): string | undefined {
    return this.outage;
  }

  /** Starts sending if it is not already. */
  kick(): void {
    this.pause.wake();
    if (this.running || this.stopped) return;
    this.running = true;
    this.loop().finally(() => {
      this.running = false;
    });
  }

  stop(): void {
    this.stopped = true;
    this.pause.wake();
  }

  private async loop(): Promise<void> {
    let failedRounds = 0;
    let delayMs = 0;
    for (let heads = this.outbox.heads(); heads.length > 0 && !this.stopped; heads = this.outbox.heads()) {
      if (delayMs > 0) await this.pause.for(delayMs);
      if (this.stopped) return;
      // One event per address at a time, every address at once: a transition's lock-state,
      // clock-class and sync-state go together, each address's events still in order.
      const outcomes = await Promise.all(
        heads.map((head) => this.send(head).catch((error: unknown) => this.unreachable(error))),
      );
      if (outcomes.includes('retry')) {
        failedRounds += 1;
        // The service's Retry-After (a publisher over its rate) wins over a shorter back-off.
        delayMs = Math.max(backoffMs(failedRounds, SEND_BACKOFF, 'equal'), this.retryAfterMs);
        this.retryAfterMs = 0;
        if (this.verbose)
          this.log(
            `${new Date().toISOString()} ${this.outbox.size} event(s) unsent (${this.outage ?? 'publisher lost'}); next try in ${delayMs} ms`,
          );
        continue;
      }
      failedRounds = 0;
      delayMs = 0;
      if (this.outage) {
        this.outage = undefined;
        this.log(`service at ${this.client.url} answers again; ${this.outbox.size} event(s) to send`);
      }
    }
  }

  private async send(head: QueuedEvent): Promise<'done' | 'retry'> {
    const id = this.publisherIds.get(head.address) ?? (await this.register(head.address));
    if (!id) return 'retry';
    const answer = await this.client.request('POST', `/publishers/${id}/events`, head.event);
    if (answer.status >= 200 && answer.status < 300) {
      this.outbox.remove(head);
      this.onAccepted(head, answer.status);
      return 'done';
    }
    if (answer.status === 404) {
      this.publisherIds.delete(head.address);
      return 'retry';
    }
    if (retryable(answer.status)) return this.unavailable(answer);
    this.log(
      `the service refused ${head.event.type} for ${head.address} (HTTP ${answer.status}): ${detail(answer.body)}; dropped`,
    );
    this.outbox.remove(head);
    return 'done';
  }

  /** 201 or 409 (already registered) both give the publisher's id. */
  async register(address: string): Promise<string | undefined> {
    const created = await this.client.request('POST', '/publishers', { ResourceAddress: address });
    let id: string | undefined;
    if (created.status === 201) id = member(created.body, 'SubscriptionId');
    else if (created.status === 409) {
      const listed = await this.client.request(
        'GET',
        `/publishers?ResourceAddress=${encodeURIComponent(address)}`,
      );
      const found = Array.isArray(listed.body)
        ? listed.body.find((publisher) => member(publisher, 'ResourceAddress') === address)
        : undefined;
      id = member(found, 'SubscriptionId');
    } else if (!retryable(created.status)) {
      // A 404 here is a URL with no API behind it (a proxy's or another server's path), not a
      // publisher: it is said once, with what to check.
      const hint =
        created.status === 404
          ? `; is ${this.client.url} the service? --service takes its origin or the API base npm start prints`
          : '';
      const line = `the service refused publisher ${address} (HTTP ${created.status}): ${detail(created.body)}${hint}`;
      if (line !== this.refusal) this.log(line);
      this.refusal = line;
    }
    if (id) this.publisherIds.set(address, id);
    else if (retryable(created.status)) this.unavailable(created);
    return id;
  }

  private unavailable(answer: Answer): 'retry' {
    this.retryAfterMs = Math.max(this.retryAfterMs, answer.retryAfterMs ?? 0);
    return this.failing(`answers HTTP ${answer.status} (${detail(answer.body)})`);
  }

  private unreachable(error: unknown): 'retry' {
    const cause =
      error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return this.failing(`unreachable (${cause})`);
  }

  /** One log line when an outage starts and when its cause changes, not one per retry. */
  private failing(cause: string): 'retry' {
    if (this.outage !== cause) {
      this.outage = cause;
      this.log(
        `service at ${this.client.url} ${cause}; keeping ${this.outbox.size} event(s) on disk and retrying`,
      );
    }
    return 'retry';
  }
}

function retryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

function member(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}

function detail(body: unknown): string {
  return member(body, 'detail') ?? (typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body));
}
