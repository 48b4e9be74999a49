import { scaledMs, type Timing } from '../../../shared/timing.js';
import { objectKey, type Node, type Pod, type Taint } from '../../../shared/types.js';
import { parseGoDuration } from '../../../shared/go-duration.js';
import { AUTONOMY_DURATION_ANNOTATION, toleratesTaint, UNREACHABLE_TAINT_KEY } from './taints.js';

/** A node's autonomy duration in milliseconds of real time (Infinity: for ever), or the invalid text. */
export interface Autonomy {
  ms?: number;
  invalid?: string;
}

/** The node's `kedge.io/autonomy-duration` annotation: a Go duration, "0" meaning never evict. Pure. */
export function autonomyOf(node: Node): Autonomy {
  const text = node.metadata.annotations?.[AUTONOMY_DURATION_ANNOTATION];
  if (text === undefined) return {};
  const ms = parseGoDuration(text);
  if (ms === undefined || ms < 0) return { invalid: text };
  return { ms: ms === 0 ? Infinity : ms };
}

export interface EvictionContext {
  now: number;
  timing: Pick<Timing, 'timeScale'>;
  /** From the node's annotation: replaces tolerationSeconds for the unreachable taint. */
  autonomyMs?: number | undefined;
  /** When a taint without timeAdded was first seen (default: now). */
  since?: (taint: Taint) => number | undefined;
}

function startOf(taint: Taint, ctx: EvictionContext): number {
  const added = taint.timeAdded ? Date.parse(taint.timeAdded) : NaN;
  return Number.isNaN(added) ? (ctx.since?.(taint) ?? ctx.now) : added;
}

/**
 * When the pod must leave a node with these NoExecute taints (the taint manager): at once if
 * one taint is not tolerated; else the earliest taint start + its toleration's seconds (the
 * first toleration matching each taint counts, as in Kubernetes); undefined (never) when no
 * toleration used has seconds. On an autonomous node the unreachable taint allows the node's
 * duration instead, though a toleration without seconds still never evicts. Pure.
 */
export function evictionTime(pod: Pod, noExecute: readonly Taint[], ctx: EvictionContext): number | undefined {
  let at = Infinity;
  for (const taint of noExecute) {
    const toleration = pod.spec.tolerations?.find((t) => toleratesTaint(t, taint));
    if (!toleration) return ctx.now;
    if (toleration.tolerationSeconds == null) continue;
    const allowedMs =
      taint.key === UNREACHABLE_TAINT_KEY && ctx.autonomyMs !== undefined
        ? scaledMs(ctx.timing, ctx.autonomyMs / 1000)
        : scaledMs(ctx.timing, Math.max(0, toleration.tolerationSeconds));
    at = Math.min(at, startOf(taint, ctx) + allowedMs);
  }
  return at === Infinity ? undefined : at;
}

export interface EvictionPlan {
  /** Pods whose time has come: delete them now. */
  evict: Pod[];
  /** Pod key → when it is to be evicted, for every pod with a deadline (due or not). */
  deadlines: Map<string, number>;
  /** The earliest deadline still ahead: when to plan again. */
  nextAt?: number;
  /** The node's autonomy annotation when it is not a valid duration (then ignored). */
  invalidAutonomy?: string;
}

/** Which pods bound to the node to evict now, and when the next one is due. Pure. */
export function planEvictions(node: Node, pods: Iterable<Pod>, now: number, timing: Pick<Timing, 'timeScale'>, since?: EvictionContext['since']): EvictionPlan {
  const plan: EvictionPlan = { evict: [], deadlines: new Map() };
  const autonomy = autonomyOf(node);
  if (autonomy.invalid !== undefined) plan.invalidAutonomy = autonomy.invalid;
  const noExecute = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
  if (noExecute.length === 0) return plan;
  const ctx: EvictionContext = { now, timing, autonomyMs: autonomy.ms, since };
  for (const pod of pods) {
    if (pod.spec.nodeName !== node.metadata.name || pod.metadata.deletionTimestamp) continue;
    const at = evictionTime(pod, noExecute, ctx);
    if (at === undefined) continue;
    plan.deadlines.set(objectKey(pod.metadata), at);
    if (at <= now) plan.evict.push(pod);
    else if (plan.nextAt === undefined || at < plan.nextAt) plan.nextAt = at;
  }
  return plan;
}
