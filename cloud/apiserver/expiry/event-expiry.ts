import type { Cancel, Clock } from '../../../shared/clock.js';
import { isKedgeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/log.js';
import type { ApiClient } from '../../client/client.js';
import { planEventExpiry, type EventTimes, type ExpiredEvent } from './event-expiry-plan.js';

export interface EventExpiryOptions {
  /** The apiserver's own client (the cloud's identity). */
  api: ApiClient;
  clock: Clock;
  logger: Logger;
  /** How long an Event outlives its last write (`kedge cloud --event-ttl`, time-scaled). */
  ttlMs: number;
  /** Most Events deleted in one pass (default 500). */
  maxPerPass?: number;
}

export interface EventExpiry {
  /** Runs one pass now; resolves with how many Events it deleted. */
  sweep(): Promise<number>;
  /** Stops the passes and waits for the one running. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_MAX_PER_PASS = 500;
/** How often a pass runs: a tenth of the TTL, at most a minute apart. */
const passIntervalMs = (ttlMs: number): number => Math.max(1, Math.min(ttlMs / 10, 60_000));

/**
 * kube-apiserver's --event-ttl, on the apiserver's side (kube's etcd leases): every pass lists
 * the Events and deletes, through the API, those whose last write is older than the TTL (at
 * most `maxPerPass`, the oldest first; a pass that hit the bound is followed by another soon).
 * An Event written since it was listed (a recurring one counted up) is kept: each delete is
 * conditional on the version listed. A pass that fails (the store is stopped) is retried on the
 * next one. Not a controller: it runs in every apiserver, with no leader election.
 */
export function startEventExpiry(options: EventExpiryOptions): EventExpiry {
  const { api, clock, logger, ttlMs } = options;
  const maxPerPass = options.maxPerPass ?? DEFAULT_MAX_PER_PASS;
  const interval = passIntervalMs(ttlMs);
  let cancel: Cancel | undefined;
  let running: Promise<number> | undefined;
  let closed = false;

  const sweep = (): Promise<number> => (running ??= pass().finally(() => (running = undefined)));
  async function pass(): Promise<number> {
    const { items } = await api.list<EventTimes>({ resource: 'events' });
    const expired = planEventExpiry(items, clock.now(), ttlMs, maxPerPass);
    let deleted = 0;
    for (const event of expired) if (await deleteUnchanged(api, event)) deleted++;
    if (deleted > 0) logger.debug('expired events', { deleted, ttlMs });
    return expired.length;
  }
  const schedule = (ms: number): void => {
    if (!closed) cancel = clock.setTimer(ms, () => void tick());
  };
  async function tick(): Promise<void> {
    const planned = await sweep().catch((err: unknown) => (logger.warn('could not expire events', { error: String(err) }), 0));
    schedule(planned >= maxPerPass ? Math.min(1_000, interval) : interval);
  }
  schedule(interval);
  return {
    sweep,
    async close() {
      closed = true;
      cancel?.();
      await running?.catch(() => undefined);
    },
  };
}

/** Deletes the Event if it is still the version listed; false when it changed or went meanwhile. */
async function deleteUnchanged(api: ApiClient, event: ExpiredEvent): Promise<boolean> {
  try {
    await api.delete({ resource: 'events', namespace: event.namespace, name: event.name }, { preconditions: { resourceVersion: event.resourceVersion } });
    return true;
  } catch (err) {
    if (isKedgeError(err, 'NotFound') || isKedgeError(err, 'Conflict')) return false;
    throw err;
  }
}
