import { BadRequestError, NotFoundError } from '../errors';
import { isAtOrUnder } from './resource-address';

/**
 * The node a node host serves (docs/node-api.md): its API answers for the addresses at or under
 * its node, as the specification's service "runs on a cluster node". Publishers are the node's
 * own; CurrentState is the node's; a subscription may name the node, an address under it, or one
 * above it (its site, its cluster), and then receives the node's events only. The region has no
 * scope: it serves every address.
 */
export class NodeScope {
  constructor(readonly node: string) {}

  /** POST /publishers: a node registers publishers of its own addresses only. */
  assertPublisherAddress(address: string): void {
    if (isAtOrUnder(address, this.node)) return;
    throw new BadRequestError(
      `This is the API of node ${this.node}: ResourceAddress ${address} is not on it. Register publishers of other nodes with their own agent, or with the regional service`,
    );
  }

  /** GET {ResourceAddress}/CurrentState: the state of the node it runs on. */
  assertCurrentStateAddress(address: string): void {
    if (isAtOrUnder(address, this.node)) return;
    throw new NotFoundError(
      `ResourceAddress ${address} is not available on this node (${this.node}); the regional service answers for every node`,
    );
  }

  /** POST /subscriptions: the node, under it, or above it. */
  assertSubscribableAddress(address: string): void {
    if (isAtOrUnder(address, this.node) || isAtOrUnder(this.node, address)) return;
    throw new NotFoundError(
      `The subscription resource is not available: ResourceAddress ${address} is neither node ${this.node}, under it, nor above it; subscribe to other nodes at the regional service`,
    );
  }
}
