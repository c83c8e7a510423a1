/**
 * The lease and supersede rule of the delivery cursors (test/support/lease-rule.ts) run against
 * DynamoDB Local: every path by which delivery takes a lease is held to the same table.
 */
import { deliveryCursors } from '../../lib/services';
import { leaseRuleCases } from '../support/lease-rule';

leaseRuleCases(deliveryCursors);
