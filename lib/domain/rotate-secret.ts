import { BadRequestError } from '../errors';
import { isServiceId } from './ids';
import type { SubscriptionStore } from './ports';
import { signingSecretFrom } from './signing-secret';
import { notFound } from './subscriptions';

export interface RotatedSecret {
  readonly secret: string;
  /** Epoch ms until which notifications also carry the previous secret's signature. */
  readonly previousUntil: number;
}

/** A new signing secret for one subscription; the old one keeps signing for a grace period. */
export class RotateSecret {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly graceSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** `body` is an object, optionally naming the new `SigningSecret`. */
  async rotate(owner: string, id: string, body: unknown): Promise<RotatedSecret> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new BadRequestError('The request body, when given, must be a JSON object with SigningSecret');
    }
    const secret = signingSecretFrom((body as { SigningSecret?: unknown }).SigningSecret);
    if (!isServiceId(id)) throw notFound(id);
    const previousUntil = this.clock() + this.graceSeconds * 1000;
    if (!(await this.store.rotateSigningSecret(id, owner, secret, previousUntil))) throw notFound(id);
    return { secret, previousUntil };
  }
}
