import type { Node, Pod, Taint, Toleration } from './kube.js';

/** The node lifecycle controller's rules (docs/controllers.md), as kubectl users know them. */
const UNREACHABLE_TAINT_KEY = 'node.kubernetes.io/unreachable';
const AUTONOMY_DURATION_ANNOTATION = 'kedge.io/autonomy-duration';

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 1e-3, µs: 1e-3, ns: 1e-6 };

/** A Go duration ("24h", "1h30m", "0") in milliseconds; undefined when it is none (the controller then ignores it). */
export function goDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) return undefined;
  return parts.reduce((ms, [, amount, unit]) => ms + Number(amount) * UNIT_MS[unit!]!, 0);
}

/** Kubernetes' Toleration.ToleratesTaint. */
function tolerates(t: Toleration, taint: Taint): boolean {
  if ((t.effect && t.effect !== taint.effect) || (t.key && t.key !== taint.key)) return false;
  return t.operator === 'Exists' || ((t.operator ?? 'Equal') === 'Equal' && (t.value ?? '') === (taint.value ?? ''));
}

interface Rules {
  /** The node's autonomy duration in ms (Infinity: never), replacing tolerationSeconds for the unreachable taint. */
  autonomyMs: number | undefined;
  timeScale: number;
  now: number;
}

/**
 * When the taint manager evicts the pod: the earliest taint's timeAdded plus its toleration's
 * seconds (divided by the time scale), at once for a taint not tolerated, never (undefined)
 * when no toleration used has seconds.
 */
function evictionAt(pod: Pod, noExecute: readonly Taint[], rules: Rules): number | undefined {
  let at = Infinity;
  for (const taint of noExecute) {
    const toleration = pod.spec?.tolerations?.find((t) => tolerates(t, taint));
    if (!toleration) return rules.now;
    if (toleration.tolerationSeconds == null) continue;
    const allowedMs = taint.key === UNREACHABLE_TAINT_KEY && rules.autonomyMs !== undefined ? rules.autonomyMs : Math.max(0, toleration.tolerationSeconds) * 1000;
    const added = Date.parse(taint.timeAdded ?? '');
    at = Math.min(at, (Number.isNaN(added) ? rules.now : added) + allowedMs / rules.timeScale);
  }
  return at === Infinity ? undefined : at;
}

function autonomyMs(node: Node): number | undefined {
  const text = node.metadata.annotations?.[AUTONOMY_DURATION_ANNOTATION];
  const ms = text === undefined ? undefined : goDurationMs(text);
  return ms === 0 ? Infinity : ms;
}

/** "0:27", "4:12", "1:02:03": the time left, rounded up to the second. */
export function countdown(ms: number): string {
  const s = Math.ceil(Math.max(0, ms) / 1000);
  const mmss = `${Math.floor(s / 60) % 60}:${String(s % 60).padStart(2, '0')}`;
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mmss.padStart(5, '0')}` : mmss;
}

/**
 * What the taint manager will do to the pods bound to a node with NoExecute taints, in a few
 * words: "pods evicted in 4:12", "pods stay: …"; undefined for a node without such taints.
 */
export function evictionOutlook(node: Node, pods: Iterable<Pod>, timeScale: number, now: number): string | undefined {
  const noExecute = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
  if (noExecute.length === 0) return undefined;
  const bound = [...pods].filter((p) => p.spec?.nodeName === node.metadata.name);
  const remaining = bound.filter((p) => !p.metadata.deletionTimestamp);
  if (remaining.length === 0) return bound.length > 0 ? 'pods evicted: Terminating until the node answers again' : 'no pods to evict';
  const rules: Rules = { autonomyMs: autonomyMs(node), timeScale, now };
  const deadlines = remaining.map((p) => evictionAt(p, noExecute, rules)).filter((at): at is number => at !== undefined);
  if (deadlines.length === 0) return rules.autonomyMs === Infinity ? `pods stay: the node is autonomous (${AUTONOMY_DURATION_ANNOTATION}=0)` : 'pods stay: they tolerate the taint for ever';
  const first = Math.min(...deadlines);
  const staying = remaining.length - deadlines.length;
  const when = first <= now ? 'being evicted now' : `evicted in ${countdown(first - now)}`;
  if (staying > 0) return `${deadlines.length} of ${remaining.length} pods ${when}; the others stay (they tolerate the taint for ever)`;
  return `${deadlines.every((at) => at === first) ? 'pods' : 'the first pod'} ${when}`;
}
