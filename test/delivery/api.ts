/** The few API calls the delivery tests make, through the real route handlers (test/support/api.ts). */
import {
  api,
  CLOCK_CLASS,
  eventFor,
  expectJson,
  expectNoContent,
  LOCK_STATE,
  SYNC_STATE,
} from '../support/api';

export {
  CLOCK_CLASS,
  freshNode,
  LOCK_STATE,
  publishAccepted,
  registerPublisher,
  SYNC_STATE,
} from '../support/api';

export async function subscribe(address: string, endpointUri: string): Promise<string> {
  const response = await api.createSubscription({ ResourceAddress: address, EndpointUri: endpointUri });
  return expectJson<{ SubscriptionId: string }>(response, 201).SubscriptionId;
}

export const publish = api.publish;

export async function subscriptionStatus(id: string): Promise<number> {
  return (await api.getSubscription(id)).status;
}

export async function unsubscribe(id: string): Promise<void> {
  expectNoContent(await api.deleteSubscription(id));
}

/** A catalogue event of the given source for the publisher at `address`. */
export function eventAt(
  address: string,
  source: string,
  value: string | number,
  time = new Date().toISOString(),
) {
  const types: Record<string, [string, 'notification' | 'metric', string]> = {
    [LOCK_STATE]: ['event.sync.ptp-status.ptp-state-change', 'notification', 'enumeration'],
    [SYNC_STATE]: ['event.sync.sync-status.synchronization-state-change', 'notification', 'enumeration'],
    [CLOCK_CLASS]: ['event.sync.ptp-status.ptp-clock-class-change', 'metric', 'decimal64.3'],
  };
  const [type, dataType, valueType] = types[source] ?? [
    'event.test.x.y',
    'notification' as const,
    'enumeration',
  ];
  if (!address.endsWith(source)) throw new Error(`${address} does not end with the source ${source}`);
  const node = address.slice(0, address.length - source.length);
  // Numbers in the form they are delivered in (a string), so what arrives equals what was sent.
  const wireValue = valueType === 'decimal64.3' ? String(value) : value;
  return eventFor({ node, source, type, value: wireValue, dataType, valueType, time });
}
