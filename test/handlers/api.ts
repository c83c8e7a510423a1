/**
 * The handler suites' helpers (test/support/api.ts), with queued delivery running: publishing
 * enqueues and the in-process local queue delivers, as under `npm start`.
 */
import { useQueuedDelivery } from '../support/queued-delivery';

export const deliveryQueue = useQueuedDelivery();
export * from '../support/api';
