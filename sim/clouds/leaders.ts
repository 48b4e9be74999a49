import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiClient } from '../../cloud/client/client.js';
import { getOrUndefined } from '../../cloud/client/client.js';
import { CONTROLLER_MANAGER_LOCK, HUB_LOCK, SCHEDULER_LOCK } from '../../cloud/leaderelection/index.js';
import type { Lease } from '../../shared/config-types.js';
import type { CloudMember } from './cloud-set.js';

/** The kube-system Leases the clouds campaign for (see docs/operations.md, "Leader election"). */
export const CONTROL_PLANE_LEASES = [SCHEDULER_LOCK.name, CONTROLLER_MANAGER_LOCK.name, HUB_LOCK.name] as const;
export type ControlPlaneLease = (typeof CONTROL_PLANE_LEASES)[number];

/** Lease name → the cloud its holder is (its name), or undefined when it is free or held by no cloud of the set. */
export type Leaders = Record<ControlPlaneLease, string | undefined>;

/** The uuid part of a cloud's candidate identity (`<hostname>_<uuid>`), kept in its data dir. */
async function identityUuid(member: CloudMember): Promise<string | undefined> {
  const kept = await readFile(join(member.dataDir, 'leader-election-id'), 'utf8').catch(() => '');
  return kept.trim() || undefined;
}

/** Reads the kube-system Leases through the API and tells which cloud of `members` holds each. */
export async function readLeaders(api: ApiClient, members: readonly CloudMember[]): Promise<Leaders> {
  const byUuid = new Map<string, string>();
  for (const m of members) {
    const uuid = await identityUuid(m);
    if (uuid) byUuid.set(uuid, m.name);
  }
  const holderOf = async (name: ControlPlaneLease): Promise<string | undefined> => {
    const lease = await getOrUndefined(() => api.get<Lease>({ resource: 'leases', group: 'coordination.k8s.io', namespace: HUB_LOCK.namespace, name }));
    const holder = lease?.spec?.holderIdentity ?? '';
    return byUuid.get(holder.slice(holder.lastIndexOf('_') + 1));
  };
  const holders = await Promise.all(CONTROL_PLANE_LEASES.map(holderOf));
  return Object.fromEntries(CONTROL_PLANE_LEASES.map((name, i) => [name, holders[i]])) as Leaders;
}

/** The cloud that holds every control-plane Lease, or undefined while they are split or free. */
export function soleLeader(leaders: Leaders): string | undefined {
  const holders = new Set(Object.values(leaders));
  const [only] = holders;
  return holders.size === 1 ? only : undefined;
}

/** The leading cloud: the one holding the most Leases, the hub's holder on a tie (`kill: leader` in a scenario). Pure. */
export function leadingCloud(leaders: Leaders): string | undefined {
  const counts = new Map<string, number>();
  for (const holder of Object.values(leaders)) if (holder) counts.set(holder, (counts.get(holder) ?? 0) + 1);
  const most = Math.max(0, ...counts.values());
  const tied = [...counts].filter(([, n]) => n === most).map(([name]) => name);
  return tied.includes(leaders['kedge-hub'] ?? '') ? leaders['kedge-hub'] : tied[0];
}
