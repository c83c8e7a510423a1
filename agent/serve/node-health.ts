/**
 * GET /health on a node: `OK` as the region answers it (Red Hat's consumer reads that), and, for a
 * client that asks for JSON, what an operator of the node needs: the daemons the agent follows,
 * whether the region takes its events, the outbox's depth and the node's delivery queues.
 */

import { json, SERVICE_VERSION_HEADER, text } from '../../lib/http/responses';
import { httpRoute } from '../../lib/http/route';
import { storeHealth } from '../../lib/services';
import { version } from '../../package.json';

export interface NodeStatus {
  readonly daemons: readonly { readonly daemon: string; readonly source: string }[];
  readonly region: { readonly url: string; readonly reachable: boolean; readonly problem?: string };
  readonly outbox: { readonly depth: number };
}

export function nodeHealth(
  node: string,
  status: () => NodeStatus,
  queues: () => Record<string, { total: number; visible: number }>,
) {
  return httpRoute(async (event) => {
    await storeHealth().ping();
    const release = { [SERVICE_VERSION_HEADER]: version };
    if (!/application\/json/.test(event.headers?.accept ?? '')) return text(200, 'OK', release);
    return json(200, { status: 'OK', node, version, ...status(), queues: queues() }, release);
  });
}
