/** What bench/scale.mjs drives, bundled by esbuild: the real handlers, and the store's own item builders to seed with. */
export { handler as deleteAllSubscriptionsHandler } from '../functions/delete-all-subscriptions';
export { handler as listPublishersHandler } from '../functions/list-publishers';
export { handler as listSubscriptionsHandler } from '../functions/list-subscriptions';
export { handler as removeRetiredHandler } from '../functions/remove-retired-subscriptions';
export { publisherIdFor, subscriptionIdFor } from '../lib/domain/ids';
export { storeStatus } from '../lib/services';
export { documentClient } from '../lib/store/dynamo-client';
export { publisherItem, publisherStateItem, subscriptionItem } from '../lib/store/items';
export { keys } from '../lib/store/keys';
export { countBy, ownerCount } from '../lib/store/transactions';
export { httpApiEvent, lambdaContext } from '../test/support/http-event';
