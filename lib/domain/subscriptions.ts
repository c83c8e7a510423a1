import { BadRequestError, clip, NotFoundError } from '../errors';
import { isServiceId } from './ids';
import type { Page, PageRequest, RetiredSubscriptions, Subscription } from './model';
import type { RetiredSubscriptionRemoval, SubscriptionStore } from './ports';
import { normaliseResourceAddress } from './resource-address';

/** Reading and removing subscriptions; creating one is `Subscribe` (lib/domain/subscribe.ts). */
export class Subscriptions {
  constructor(
    private readonly store: SubscriptionStore,
    private readonly removal: RetiredSubscriptionRemoval,
  ) {}

  async get(owner: string, id: string): Promise<Subscription> {
    if (!isServiceId(id)) throw notFound(id);
    const subscription = await this.store.getSubscription(id, owner);
    if (!subscription) throw notFound(id);
    return subscription;
  }

  async list(
    owner: string,
    resourceAddress: string | undefined,
    page: PageRequest,
  ): Promise<Page<Subscription>> {
    const address = resourceAddress === undefined ? undefined : normaliseResourceAddress(resourceAddress);
    const found = await this.store.listSubscriptions(owner, address, page);
    if (!found) {
      throw new BadRequestError(
        'The cursor belongs to a list that DELETE /subscriptions has emptied since; list again without cursor',
      );
    }
    return found;
  }

  async delete(owner: string, id: string): Promise<void> {
    if (!isServiceId(id)) throw notFound(id);
    const deleted = await this.store.deleteSubscription(id, owner);
    if (!deleted) throw notFound(id);
  }

  /**
   * Constant time whatever the owner holds: one write retires every subscription (from then on
   * none is listed, read, counted or delivered to) and a queued job removes their items.
   */
  async deleteAll(owner: string): Promise<void> {
    const retired = await this.store.retireAllSubscriptions(owner);
    if (retired) await this.removal.schedule(retired);
  }

  /**
   * The queued job of delete-all: removes retired items until `timeLeftMs()` runs low, then
   * schedules the rest as a new job. Safe to run twice.
   */
  async removeRetired(job: RetiredSubscriptions, timeLeftMs: () => number): Promise<void> {
    const rest = await this.store.removeRetired(job, () => timeLeftMs() < REMOVAL_RESERVE_MS);
    if (rest) await this.removal.schedule(rest);
  }
}

/** Time kept back for the last page of removals and the job's re-scheduling. */
const REMOVAL_RESERVE_MS = 5_000;

export function notFound(id: string): NotFoundError {
  return new NotFoundError(`Subscription ${clip(id)} does not exist`);
}
