import { NotFoundError } from '../errors';
import { isServiceId } from './ids';
import type { Subscription, SubscriptionStore } from './model';
import { normaliseResourceAddress } from './resource-address';
/** Reading and removing subscriptions; creating one is `Subscribe` (lib/domain/subscribe.ts). */
export class Subscriptions {
  constructor(private readonly store: SubscriptionStore) {}

  async get(owner: string, id: string): Promise<Subscription> {
    if (!isServiceId(id)) throw notFound(id);
    const subscription = await this.store.getSubscription(id);
    if (subscription?.owner !== owner) throw notFound(id);
    return subscription;
  }

  async list(owner: string, resourceAddress: string | undefined): Promise<Subscription[]> {
    const address = resourceAddress === undefined ? undefined : normaliseResourceAddress(resourceAddress);
    return this.store.listSubscriptions(owner, address);
  }

  async delete(owner: string, id: string): Promise<void> {
    if (!isServiceId(id)) throw notFound(id);
    const deleted = await this.store.deleteSubscription(id, owner);
    if (!deleted) throw notFound(id);
  }

  async deleteAll(owner: string): Promise<number> {
    return this.store.deleteAllSubscriptions(owner);
  }
}

export function notFound(id: string): NotFoundError {
  return new NotFoundError(`Subscription ${clip(id)} does not exist`);
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
