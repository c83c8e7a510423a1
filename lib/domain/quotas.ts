import { ForbiddenError, type Refusal } from '../errors';

/** A quota (docs/security.md): its value, and the deploy parameter (and local variable) that sets it. */
export interface Quota {
  /** e.g. `subscriptions per owner`. */
  readonly name: string;
  readonly value: number;
  /** e.g. `subscriptionsPerOwner`, the stage parameter. */
  readonly parameter: string;
  /** e.g. `SUBSCRIPTIONS_PER_OWNER`, the variable npm start reads. */
  readonly variable: string;
}

/** The 403 of a quota reached: what was counted, the quota's value, and how to raise it. */
export function quotaReached(counted: string, quota: Quota, refusal: Refusal): ForbiddenError {
  return new ForbiddenError(
    `${counted}: the quota of ${quota.name} is ${quota.value}. Delete one first, or have the operator raise the quota (the stage parameter ${quota.parameter}: --param="${quota.parameter}=<n>"; locally ${quota.variable}=<n> npm start)`,
    refusal,
  );
}
