import { Counters } from '../../../shared/counters.js';

/** The data plane's counters, by Service port (`service="<namespace>/<name>:<port name>"`), as /metrics serves them. */
export const PROXY_COUNTERS = {
  connections: 'kedge_proxy_connections_total',
  dialFailures: 'kedge_proxy_endpoint_dial_failures_total',
  noEndpoint: 'kedge_proxy_connections_without_endpoint_total',
  allDialsFailed: 'kedge_proxy_connections_all_dials_failed_total',
  dropped: 'kedge_proxy_connections_dropped_total',
  idleClosed: 'kedge_proxy_connections_idle_closed_total',
  bytesIn: 'kedge_proxy_bytes_from_clients_total',
  bytesOut: 'kedge_proxy_bytes_from_endpoints_total',
} as const;

export function proxyCounters(): Counters {
  const c = PROXY_COUNTERS;
  return new Counters()
    .describe(c.connections, 'Connections accepted on a portal or NodePort.')
    .describe(c.dialFailures, 'Dials to an endpoint that failed or timed out (the next endpoint is tried).')
    .describe(c.noEndpoint, 'Connections accepted then closed: the Service port had no ready endpoint.')
    .describe(c.allDialsFailed, 'Connections closed after every dial attempt failed.')
    .describe(c.dropped, 'Connections closed at once: the listener held its maximum.')
    .describe(c.idleClosed, 'Connections closed after passing no byte for the idle timeout.')
    .describe(c.bytesIn, 'Bytes read from clients and sent on to endpoints.')
    .describe(c.bytesOut, 'Bytes read from endpoints and sent back to clients.');
}
