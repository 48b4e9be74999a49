import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../shared/clock.js';
import type { DemoEtcdMember } from '../shared/demo-file.js';
import { ControlError } from './control-replies.js';
import { startEtcdCluster, type EtcdCluster } from './etcd/etcd-cluster.js';
import { readLayout } from './etcd/etcd-layout.js';

/** What the demo and its scenarios can do to one etcd member. */
export const ETCD_MEMBER_ACTIONS = ['stop', 'start', 'kill'] as const;
export type EtcdMemberAction = (typeof ETCD_MEMBER_ACTIONS)[number];

/** A member as the control API shows it (GET /etcd). */
export interface EtcdMemberInfo extends DemoEtcdMember {
  state: 'running' | 'stopped';
  /** etcd's process id (its last one while stopped). */
  pid?: number;
}

/** The answer to an action: the member after it, and what happened, in words. */
export interface EtcdMemberActed extends EtcdMemberInfo {
  message: string;
}

/** The demo's etcd members, as the control API and the scenarios act on them. */
export interface EtcdControl {
  list(): Promise<EtcdMemberInfo[]>;
  /** Resolves at once (a start, within START_WAIT_MS); rejects with a ControlError (404 unknown member, 409 already so). */
  act(member: string, action: EtcdMemberAction): Promise<EtcdMemberActed>;
}

export interface DemoEtcd {
  readonly members: DemoEtcdMember[];
  /** The cloud's flags for it: --store etcd --etcd-endpoints …. */
  readonly cloudArgs: string[];
  readonly control: EtcdControl;
  /** Stops every member (SIGTERM); their data stays in <data-dir>/etcd. */
  close(): Promise<void>;
}

export const demoEtcdDir = (dataDir: string): string => join(dataDir, 'etcd');
/** etcd's own log (a JSON object a line, each prefixed with its member): too much for the demo's terminal. */
export const demoEtcdLog = (dataDir: string): string => join(demoEtcdDir(dataDir), 'etcd.log');
const embeddedStoreDir = (dataDir: string): string => join(dataDir, 'store');

/** A start answers once the member serves, or after this long with "waiting for a quorum". */
const START_WAIT_MS = 3_000;

async function holds(dir: string): Promise<boolean> {
  return existsSync(dir) && (await readdir(dir)).length > 0;
}

/**
 * A data dir keeps one cluster: the embedded store's (`<data-dir>/store`) or an etcd
 * cluster's (`<data-dir>/etcd`). Starting the other kind there would give the cloud a second,
 * empty cluster beside the kept one, with the same credentials and edges: refused, naming both ways out.
 */
export async function refuseMixedStores(dataDir: string, etcd: number | undefined): Promise<void> {
  const [other, what] = etcd ? [embeddedStoreDir(dataDir), 'the embedded store'] : [demoEtcdDir(dataDir), 'an etcd cluster (kedge demo --etcd)'];
  if (!(await holds(other))) return;
  const asked = etcd ? `--etcd ${etcd}` : 'the embedded store (no --etcd)';
  const size = etcd ? undefined : (await readLayout(other).catch(() => undefined))?.members.length;
  const same = etcd ? 'without --etcd' : `with --etcd ${size ?? 'N'}`;
  throw new Error(`${dataDir} holds a demo on ${what} (${other}): a demo with ${asked} there would start another cluster beside it. Run it ${same}, or give another --data-dir, or remove ${other}`);
}

/** Starts (or starts again) the demo's etcd cluster of `size` members, kept in <data-dir>/etcd. */
export async function startDemoEtcd(o: { size: number; dataDir: string; clock: Clock }): Promise<DemoEtcd> {
  await mkdir(demoEtcdDir(o.dataDir), { recursive: true, mode: 0o700 });
  const log = createWriteStream(demoEtcdLog(o.dataDir), { flags: 'a', mode: 0o600 });
  // A member that failed to start may still print after the log is closed: those lines are dropped, not written after its end.
  const closeLog = (): Promise<void> => new Promise((resolve) => log.end(resolve));
  const cluster = await startEtcdCluster({ size: o.size, clock: o.clock, dir: demoEtcdDir(o.dataDir), onLine: (line) => void (log.writableEnded || log.write(`${line}\n`)) }).catch(async (err: unknown) => {
    await closeLog();
    throw err;
  });
  const members = cluster.members.map((m, i) => ({ name: m.name, clientUrl: cluster.endpoints[i]! }));
  return {
    members,
    cloudArgs: ['--store', 'etcd', '--etcd-endpoints', cluster.endpoints.join(',')],
    control: etcdControl(cluster, members, o.clock),
    async close() {
      await Promise.all(members.map((_, i) => cluster.stop(i)));
      await cluster.close();
      await closeLog();
    },
  };
}

function etcdControl(cluster: EtcdCluster, members: DemoEtcdMember[], clock: Clock): EtcdControl {
  const info = async (i: number): Promise<EtcdMemberInfo> => {
    const pid = await cluster.pid(i);
    return { ...members[i]!, state: cluster.isRunning(i) ? 'running' : 'stopped', ...(pid !== undefined && { pid }) };
  };
  const indexOf = (member: string): number => {
    const i = members.findIndex((m) => m.name === member);
    if (i < 0) throw new ControlError(404, 'NotFound', `no etcd member "${member}" in this demo (its members: ${members.map((m) => m.name).join(', ')})`);
    return i;
  };
  return {
    list: () => Promise.all(members.map((_, i) => info(i))),
    async act(member, action) {
      const i = indexOf(member);
      const running = cluster.isRunning(i);
      if (action === 'start' && running) throw new ControlError(409, 'Conflict', `${member} is running already`);
      if (action !== 'start' && !running) throw new ControlError(409, 'Conflict', `${member} is not running`);
      if (action === 'stop') await cluster.stop(i);
      if (action === 'kill') await cluster.kill(i);
      const message = action === 'start' ? await started(cluster, i, clock) : action === 'stop' ? 'stopped (SIGTERM); its data stays' : 'killed (kill -9); its data stays';
      return { ...(await info(i)), message: `${member} ${message}` };
    },
  };
}

/** Starts the member and says whether it serves yet: it does once a quorum of members runs. */
async function started(cluster: EtcdCluster, i: number, clock: Clock): Promise<string> {
  const { ready } = cluster.launch(i);
  let cancel = (): void => {};
  const waited = new Promise<'waiting'>((resolve) => (cancel = clock.setTimer(START_WAIT_MS, () => resolve('waiting'))));
  try {
    const outcome = await Promise.race([ready.then(() => 'serving' as const), waited]);
    return outcome === 'serving' ? 'started; it serves clients' : `started; it does not serve clients yet (after ${START_WAIT_MS / 1000} s): it will once a quorum of members runs`;
  } catch (err) {
    throw new ControlError(500, 'Internal', (err as Error).message);
  } finally {
    cancel();
  }
}
