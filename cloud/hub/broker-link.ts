import { filter, mergeMap, type Observable, type Subscription } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import { LogSampler, unloggedFields } from '../../shared/log-sampler.js';
import { parseTopic } from '../../shared/protocol/topics.js';
import type { Transport, TransportMessage } from '../../shared/transport.js';
import { decodeInbound, type Inbound } from './inbound.js';

export interface InboundDeps {
  clock: Clock;
  logger: Logger;
  /** Called once per payload dropped by validation [SYNC-1] (logged with sampling). */
  onMalformed(): void;
}

const isStreamUp = (topic: string): boolean => parseTopic(topic)?.channel === 'stream-up';

/** [SYNC-20] The stream frames nodes sent (raw; validated by the hub's streams), apart from the sync's messages. */
export function streamFrames(transport: Transport): Observable<TransportMessage> {
  return transport.inbound$.pipe(filter((m) => isStreamUp(m.topic)));
}

/** The transport's sync messages (not stream frames), validated; malformed ones are dropped, counted and logged. */
export function validatedInbound(transport: Transport, deps: InboundDeps): Observable<Inbound> {
  const malformedLog = new LogSampler(deps.clock);
  return transport.inbound$.pipe(
    filter((m) => !isStreamUp(m.topic)),
    mergeMap(({ topic, payload, retained }) => {
      const decoded = decodeInbound(topic, payload);
      // MQTT 3.1.1 sets the flag only on what a new subscription gets from the broker's store.
      if (decoded.ok) return [retained ? { ...decoded.message, retained: true } : decoded.message];
      // An empty retained payload on a presence topic only clears it: not an error.
      if (payload.length > 0 || !topic.endsWith('/presence')) {
        deps.onMalformed(); // [SYNC-1] dropped, counted, logged (sampled); never fatal
        const unlogged = malformedLog.sample('malformed');
        if (unlogged !== undefined) deps.logger.warn('dropped malformed message', { topic, reason: decoded.reason, ...unloggedFields(unlogged) });
      }
      return [];
    }),
  );
}

/** Calls `onLost` each time the transport's session ends after it was up (a broker restart, the network). */
export function onBrokerLost(transport: Transport, onLost: () => void): Subscription {
  let up = false;
  return transport.connectivity$.subscribe(({ connected }) => {
    if (up && !connected) onLost();
    up = connected;
  });
}
