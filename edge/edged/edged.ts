import { merge, type Observable, type Subscription } from 'rxjs';
import type { Cancel, Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { Timing } from '../../shared/timing.js';
import type { Pod } from '../../shared/types.js';
import { Coalescer } from '../coalescer.js';
import { noCrash, type CrashPoint } from '../crash-point.js';
import { noEvents, type EventRecorder } from '../events/event-types.js';
import { KubeletEventLog } from '../events/kubelet-event-log.js';
import { podsIn, refOf, type LocalCache } from '../metamanager/local-cache.js';
import { Prober } from '../prober/prober.js';
import { networkNotReadyText, type NetworkPlugin } from '../network/cni/network-plugin.js';
import type { Runtime, Sandbox } from '../runtime/runtime.js';
import { cachedPodObjects, type PodObjects } from '../volumes/pod-objects.js';
import { memoryVolumeHosts, type VolumeHosts } from '../volumes/volume-hosts.js';
import { VolumeManager, type PodVolumes } from '../volumes/volume-manager.js';
import { applyPodActions } from './apply-actions.js';
import type { EnvSources } from './env-sources.js';
import { ImagePulls } from './image-pulls.js';
import { recordBackOffs, recordMountFailures } from './sync-events.js';
import { ContainerWaits, withoutNewPodNetworks, withoutUnmounted } from './container-waits.js';
import { containersBySandbox, isDesired, nextRestartAt, onlyHeldPods, planPods, type ActualPods } from './plan-pods.js';
import { derivePodStatus } from './pod-status.js';
import { jsonEqual } from '../../shared/json-equal.js';

export interface EdgedDeps {
  cache: LocalCache;
  runtime: Runtime;
  /** The network plugin the runtime addresses sandboxes with: while it is not ready no new sandbox is made. None: always ready. */
  network?: Pick<NetworkPlugin, 'status' | 'statusChanges$'>;
  clock: Clock;
  timing: Timing;
  logger: Logger;
  hostIP: string;
  /** Called after new pod statuses were queued in the cache outbox and persisted. */
  onStatusQueued: () => void;
  /** Fault injection between the steps of a pod's start (durability tests); none by default. */
  crashPoint?: CrashPoint;
  /** While true, pods the runtime runs that the cache does not hold are left running: the cache was lost, and the cloud has yet to say. */
  keepUnheldPods?: () => boolean;
  /** The ConfigMaps, Secrets (and claims) pods refer to; default: those the cache holds, each read a lookup in it now. */
  objects?: PodObjects;
  /** Where pods' volumes are materialised; default: in memory only. */
  volumeHosts?: VolumeHosts;
  /** A pod's Service variables, added to a container's env when it is created; default: none. */
  serviceEnv?: (pod: Pod) => ReadonlyMap<string, string>;
  /** Where the kubelet's Events go (edge/events); default: nowhere. */
  events?: EventRecorder;
}

/** While a container is starting (and the runtime cannot tell when it runs), edged looks again this many times per sync interval. */
const FOLLOW_UPS_PER_INTERVAL = 10;

/** Each pod's newest ready sandbox, by pod uid. */
function newestReadySandboxes(sandboxes: readonly Sandbox[]): Map<string, Sandbox> {
  const out = new Map<string, Sandbox>();
  for (const s of sandboxes) {
    const seen = out.get(s.podUid);
    if (s.state === 'ready' && (!seen || s.createdAt > seen.createdAt)) out.set(s.podUid, s);
  }
  return out;
}

const isStarting = (actual: ActualPods): boolean => actual.containers.some((c) => c.state === 'created');
const earliest = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/**
 * The kubelet: every timing.syncIntervalMs, whenever the cache changes and whenever a probe's
 * result changes, it plans (pure, planPods) and applies what makes the runtime run the cached
 * pods, then derives each pod's status and queues the ones that changed. It needs nothing
 * from the cloud.
 */
export class Edged {
  private readonly syncs: Coalescer;
  private readonly firstSync: Promise<void>;
  private markSynced: () => void = () => {};
  private cancelTick: Cancel | undefined;
  private cancelFollowUp: Cancel | undefined;
  private followUpAt: number | undefined;
  private trigger: Subscription | undefined;
  private stopped = false;
  private reportAll = false;
  private readonly prober: Prober;
  private readonly volumes: VolumeManager;
  private readonly objects: PodObjects;
  private readonly waits = new ContainerWaits();
  private readonly events: KubeletEventLog;
  private readonly images: ImagePulls;
  /** The kubelet's words for why new pods wait while the network plugin is not ready; undefined while it is. */
  private networkWait: string | undefined;

  constructor(private readonly deps: EdgedDeps) {
    const { runtime, clock, timing, logger } = deps;
    this.volumes = new VolumeManager(deps.volumeHosts ?? memoryVolumeHosts());
    this.objects = deps.objects ?? cachedPodObjects(deps.cache);
    this.events = new KubeletEventLog(deps.events ?? noEvents);
    this.images = new ImagePulls({ clock, timeScale: timing.timeScale, recorder: this.events });
    this.prober = new Prober({ runtime, clock, timing, logger: logger.child('prober'), onChange: () => void this.sync(), events: this.events });
    this.syncs = new Coalescer(() => this.syncOnce().finally(() => this.markSynced()));
    this.firstSync = new Promise((resolve) => (this.markSynced = resolve));
  }

  /**
   * Resolves after the first sync: until then the cached statuses may describe containers a
   * reboot took away, so the local API waits for it before it shows pods.
   */
  ready(): Promise<void> {
    return this.firstSync;
  }

  start(changes$: Observable<unknown>): void {
    this.cancelTick = this.deps.clock.setRepeating(this.deps.timing.syncIntervalMs, () => void this.sync());
    // The plugin becoming ready (started) lets waiting pods start at once; a podCIDR arrives as a cache change.
    this.trigger = merge(changes$, this.deps.network?.statusChanges$ ?? []).subscribe(() => void this.sync());
    void this.sync();
  }

  /** Runs a sync (or joins the next one); resolves when it is done. Never rejects. */
  sync(): Promise<void> {
    return this.syncs.run();
  }

  /**
   * Queues every pod's status on the next sync, changed or not: after a long absence the
   * cloud may have written its own view (the node controller marks pods not ready), and the
   * edge, which owns status, puts its own back.
   */
  reportAllStatuses(): Promise<void> {
    this.reportAll = true;
    return this.sync();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTick?.();
    this.cancelFollowUp?.();
    this.trigger?.unsubscribe();
    this.prober.stop();
    await this.syncs.run();
  }

  private async syncOnce(): Promise<void> {
    if (this.stopped) return;
    const { cache, runtime, clock, logger } = this.deps;
    try {
      // Read together: a relist that ends the hold while the runtime is listed must not find
      // the hold gone but the pods it brought missing from `desired`.
      const desired = podsIn(cache);
      const heldOnly = this.deps.keepUnheldPods?.() ?? false;
      let { actual, nextStart } = await this.snapshot(desired, heldOnly);
      const { objects } = this;
      const wanted = desired.filter(isDesired);
      const volumes = await this.volumes.setUpPods(wanted, objects);
      recordMountFailures(this.events, wanted, volumes);
      this.images.seen(actual.containers.map((c) => c.image));
      const network = this.deps.network?.status() ?? { ready: true };
      this.networkWait = network.ready ? undefined : `network is not ready: ${networkNotReadyText(network)}`;
      const planned = withoutUnmounted(planPods(desired, actual, clock.now(), this.deps.timing, this.prober.statuses()), volumes);
      const actions = network.ready ? planned : withoutNewPodNetworks(planned);
      recordBackOffs(this.events, actions);
      if (actions.some((a) => a.type !== 'backOff')) {
        await applyPodActions(runtime, actions, actual, logger, {
          hostIP: this.deps.hostIP, timing: this.deps.timing, pods: desired, crashPoint: this.deps.crashPoint, env: this.envSources(),
          volumePaths: (uid) => volumes.get(uid)?.paths, onConfigResult: (uid, name, message) => this.waits.configResult(uid, name, message),
          events: this.events, images: this.images,
        });
        ({ actual, nextStart } = await this.snapshot(desired, heldOnly));
      }
      // A pod's volumes go once it is gone from the cache and the runtime alike (all pods are known only when none is held back).
      const heldUids = desired.map((p) => p.metadata.uid ?? '');
      if (!heldOnly) await this.volumes.cleanUp(new Set([...heldUids, ...actual.sandboxes.map((s) => s.podUid)]));
      this.waits.keepOnly(new Set(heldUids));
      this.events.keepOnly(new Set(heldUids));
      this.images.keepOnly(new Set(heldUids));
      this.prober.update(wanted, actual);
      // In the same round: a started container shows ContainerCreating at once.
      await this.reportStatuses(actual, volumes);
      this.followUp(earliest(earliest(this.nextLook(actual, nextStart), nextRestartAt(actions)), this.images.nextDoneAt()));
    } catch (err) {
      logger.error('pod sync failed', { error: (err as Error).message });
    }
  }

  private envSources(): EnvSources {
    const { serviceEnv } = this.deps;
    return serviceEnv ? { objects: this.objects, serviceEnv } : { objects: this.objects };
  }

  /**
   * When to look again before the next tick: the moment the runtime expects a starting
   * container to run or become ready, else (a runtime that cannot tell) soon while one starts.
   */
  private nextLook(actual: ActualPods, expected: number | undefined): number | undefined {
    const { runtime, clock, timing } = this.deps;
    const now = clock.now();
    if (runtime.nextStartAt) return expected !== undefined && expected < now + timing.syncIntervalMs ? expected : undefined;
    return isStarting(actual) ? now + Math.max(1, Math.floor(timing.syncIntervalMs / FOLLOW_UPS_PER_INTERVAL)) : undefined;
  }

  /** One extra sync at `at` (the earliest asked for wins): a starting container shows as running, a backed-off one restarts, without delay. */
  private followUp(at: number | undefined): void {
    if (at === undefined || this.stopped || (this.followUpAt !== undefined && this.followUpAt <= at)) return;
    this.cancelFollowUp?.();
    this.followUpAt = at;
    this.cancelFollowUp = this.deps.clock.setTimer(Math.max(1, at - this.deps.clock.now()), () => {
      this.cancelFollowUp = undefined;
      this.followUpAt = undefined;
      void this.sync();
    });
  }

  /**
   * What the runtime holds, and when it next expects a starting container to come up, asked
   * just before listing: a container that comes up while the list is made (or this sync runs
   * on) is then looked at again at once, not at the next tick.
   */
  private async snapshot(held: Pod[], heldOnly: boolean): Promise<{ actual: ActualPods; nextStart: number | undefined }> {
    const nextStart = this.deps.runtime.nextStartAt?.();
    const [sandboxes, containers] = await Promise.all([this.deps.runtime.listSandboxes(), this.deps.runtime.listContainers()]);
    const actual = { sandboxes, containers };
    return { actual: heldOnly ? onlyHeldPods(actual, held) : actual, nextStart };
  }

  /** Queues the status of every held pod whose status changed since it was last queued. */
  private async reportStatuses(actual: ActualPods, volumes: ReadonlyMap<string, PodVolumes>): Promise<void> {
    const { cache, runtime, clock, hostIP } = this.deps;
    let queued = 0;
    // Pending ones too, under a new version: the cloud may have applied one whose ack was lost.
    const all = this.reportAll;
    this.reportAll = false;
    const probes = this.prober.statuses();
    const sandboxOf = newestReadySandboxes(actual.sandboxes);
    const inSandbox = containersBySandbox(actual.containers);
    for (const held of cache.objects()) {
      if (held.kind !== 'Pod') continue;
      const pod: Pod = held.object;
      const sandbox = sandboxOf.get(held.uid);
      const containers = sandbox ? (inSandbox.get(sandbox.id) ?? []) : [];
      const network = sandbox || pod.spec.hostNetwork === true ? undefined : this.networkWait;
      const waiting = this.waits.waitingOf(held.uid, volumes.get(held.uid), network);
      const status = derivePodStatus({ pod, sandbox, containers, runtimeName: runtime.name, hostIP, now: clock.now(), timing: this.deps.timing, probes, waiting });
      if (!all && jsonEqual(status, pod.status)) continue;
      cache.queueStatus(refOf(held), status, clock.now());
      queued++;
    }
    if (queued === 0) return;
    await cache.flush();
    (this.deps.crashPoint ?? noCrash)('status-queued');
    this.deps.onStatusQueued();
  }
}
