import {
  type DeliveryMessage,
  type PackEntry,
  packDeliveries,
  parseDeliveryQueueMessage,
} from '../../lib/delivery/messages';

/**
 * One notification the way the product makes it: packed by fan-out's `packDeliveries` and read
 * back by the deliver function's `parseDeliveryQueueMessage`. `JSON.stringify` of it is the body of
 * a notification that left its pack (DeliveryBatch sends exactly that).
 */
export function queuedNotification(
  subscription: PackEntry['subscription'],
  accepted: PackEntry['accepted'],
  enqueuedAt: Date = new Date(),
): DeliveryMessage {
  const [pack] = packDeliveries([{ subscription, accepted, enqueuedAt }]);
  const [notification] = parseDeliveryQueueMessage(pack ?? '').notifications;
  if (!notification) throw new Error('a pack of one carries one notification');
  return notification;
}

/** The one notification of a delivery message that is not a pack, as the deliver function reads it. */
export function readNotification(body: string, redrivenAt?: Date): DeliveryMessage {
  const { packed, notifications } = parseDeliveryQueueMessage(body, redrivenAt);
  const [notification] = notifications;
  if (packed || !notification) throw new Error(`not a message of one notification: ${body}`);
  return notification;
}
