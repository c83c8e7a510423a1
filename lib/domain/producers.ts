import { BadRequestError, ForbiddenError } from '../errors';
import type { ProducerGrantStore } from './ports';
import { normaliseResourceAddress } from './resource-address';

/**
 * Who registers publishers and publishes through them: deployed, the IAM caller; on the local
 * stage, `X-Producer-Id` (`local:<name>`), or the unnamed producer (`grantedAll`), which holds
 * every grant so that `npm start` and its tools need no set-up (docs/security.md).
 */
export interface Producer {
  readonly principal: string;
  /** The local stage's unnamed producer: no grant is looked up. */
  readonly grantedAll: boolean;
}

/** The principal of the local stage's unnamed producer (a named one is `local:<name>`). */
export const UNNAMED_PRODUCER = 'anonymous';

/**
 * The unnamed producer as in-process callers (the benches, tests) use it; the HTTP handlers
 * always pass the request's (lib/http/request.ts, `producerOf`).
 */
export const UNNAMED: Producer = { principal: UNNAMED_PRODUCER, grantedAll: true };

/** The grant of every address. */
export const EVERY_ADDRESS = '/';

/** A grant's prefix as kept: `/` (every address) or a normalised address. */
export function grantPrefix(raw: unknown): string {
  if (raw === EVERY_ADDRESS) return EVERY_ADDRESS;
  try {
    return normaliseResourceAddress(raw);
  } catch (error) {
    throw new BadRequestError(
      `A grant is an address prefix such as /cluster-1/site-1/node-1, or / for every address: ${(error as Error).message}`,
    );
  }
}

/** Whether a grant of `prefix` covers `address`: the prefix is the address or above it, segment by segment. */
export function grantCovers(prefix: string, address: string): boolean {
  return prefix === EVERY_ADDRESS || address === prefix || address.startsWith(`${prefix}/`);
}

/** What refusals tell the producer to run: the grants command of this stage. */
export function grantsCommand(stage: string): string {
  return stage === 'local' ? 'npm run grants --' : `npm run grants -- --stage ${stage}`;
}

/** The grants an operator gives producers (`npm run grants`), checked when a publisher is registered. */
export class ProducerAccess {
  constructor(
    private readonly grants: ProducerGrantStore,
    private readonly stage: string,
  ) {}

  /** Throws a 403 naming the missing grant and the command that adds it (one read). */
  async assertGranted(producer: Producer, address: string): Promise<void> {
    if (producer.grantedAll) return;
    const prefixes = await this.grants.grantsOf(producer.principal);
    if (prefixes.some((prefix) => grantCovers(prefix, address))) return;
    throw new ForbiddenError(
      `Producer ${producer.principal} holds no grant for ${address}` +
        (prefixes.length > 0 ? ` (its grants: ${prefixes.slice(0, 5).join(', ')})` : ' (it holds no grant)') +
        `; an operator grants it with: ${grantsCommand(this.stage)} add '${producer.principal}' ${address}`,
      { rule: 'grant', principal: producer.principal, address },
    );
  }
}

/** The 403 of a principal acting on a publisher another principal registered. */
export function notTheOwner(producer: Producer, address: string | undefined, action: string): ForbiddenError {
  return new ForbiddenError(
    `The publisher${address ? ` at ${address}` : ''} was registered by another producer principal: only the principal that registered a publisher may ${action} (you are ${producer.principal}; see docs/security.md)`,
    { rule: 'ownership', principal: producer.principal, address },
  );
}
