import { readFile } from 'node:fs/promises';
import type { Clock } from '../../shared/clock.js';
import type { EtcdSettings } from '../store/etcd/open-etcd-store.js';
import type { ComponentSet } from './component-set.js';
import type { ComponentHandle, Health } from './component.js';
import { getOnce, judgeHealth, type HealthTls } from './etcd-health.js';

/** How often each member's /health is asked. */
export const ETCD_PROBE_INTERVAL_MS = 1_000;

export const etcdMemberName = (index: number): string => `etcd-${index}`;

const ownedElsewhere: ComponentHandle = { close: async () => {} };

async function tlsOf(settings: EtcdSettings): Promise<HealthTls> {
  const read = (file: string | undefined) => (file === undefined ? undefined : readFile(file));
  const [ca, cert, key] = await Promise.all([read(settings.caFile), read(settings.certFile), read(settings.keyFile)]);
  return { ...(ca && { ca }), ...(cert && { cert }), ...(key && { key }) };
}

/**
 * Each etcd endpoint as a component, `etcd-0`, `etcd-1`, … in --etcd-endpoints order, as
 * kube-apiserver lists them in componentstatuses: its health is its /health, asked every
 * second. They run outside the cloud: stop and start refuse, saying so. Resolves once each was
 * asked once; `close` stops asking.
 */
export async function addEtcdMembers(set: ComponentSet, settings: EtcdSettings, clock: Clock): Promise<{ close(): void }> {
  const tls = await tlsOf(settings);
  const healthUrls = settings.endpoints.map((e) => new URL('/health', e).href);
  const healths: Health[] = healthUrls.map(() => ({ healthy: false, message: 'not asked yet', since: clock.now() }));
  const probe = async (i: number): Promise<void> => {
    const url = healthUrls[i]!;
    const health = await getOnce(url, tls);
    const metrics = 'error' in health || health.status === 200 ? undefined : await getOnce(new URL('/metrics', url).href, tls);
    const judged = judgeHealth(url, health, metrics);
    const before = healths[i]!;
    healths[i] = { ...judged, since: before.healthy === judged.healthy ? before.since : clock.now() };
  };
  let closed = false;
  let cancel = (): void => {};
  const round = async (): Promise<void> => {
    await Promise.all(healthUrls.map((_, i) => probe(i)));
    if (!closed) cancel = clock.setTimer(ETCD_PROBE_INTERVAL_MS, () => void round());
  };
  await round();
  healthUrls.forEach((url, i) => {
    const name = etcdMemberName(i);
    set.adopt({
      name,
      unstoppable: `etcd runs outside the cloud (${new URL(url).origin}): stop it where it runs (in a demo: kedge demo etcd stop ${name})`,
      start: async () => {
        throw new Error(`${name} cannot be started here: start it where it runs`);
      },
      health: () => healths[i]!,
    }, ownedElsewhere);
  });
  return {
    close: () => {
      closed = true;
      cancel();
    },
  };
}
