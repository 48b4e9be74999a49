import type { StartupMarks } from '../shared/trace/pod-startup-trace.js';
import { median, percentile, round } from './stats.js';

/**
 * The legs of a pod's way from the create call to a client seeing it Running, each between two
 * points: the bench's own (`sentAt` when it called create, `seenAt` when its watch saw Running)
 * and the cloud's trace (cloud/tracing/pod-startup-trace.ts).
 */
export const STAGES = {
  /** The create call, the write, and the fan-out to the cloud's informer. */
  api: ['sentAt', 'created'],
  /** The scheduler: its queue, its pick, the binding written and fanned out. */
  schedule: ['created', 'bound'],
  /** The hub: from seeing the pod bound to its first transmission to the node. */
  hub: ['bound', 'sent'],
  /** MQTT down: the broker, the link, the edge's transport. */
  down: ['sent', 'received'],
  /** The edge: its cache, edged starting the container (the sim runtime's start delay), the status queued and sent. */
  edge: ['received', 'statusSent'],
  /** MQTT up, and the hub's inbound queue. */
  up: ['statusSent', 'reported'],
  /** The status written as the node and fanned out to the informer. */
  status: ['reported', 'running'],
  /** The watch to a client outside the cloud (the bench's). */
  watch: ['running', 'seenAt'],
} as const;
export type Stage = keyof typeof STAGES;

/** Every point of one pod's way, wall-clock ms. */
export type PodPath = StartupMarks & { sentAt?: number; seenAt?: number };

export interface StageFigures {
  /** Pods with every point. */
  pods: number;
  /** Each leg's p50 and p99 over those pods (ms). */
  stages: Record<Stage, { p50: number; p99: number }>;
  /** Where the slowest 1% spend their time: each leg's mean over them (ms). */
  tail: Record<Stage, number> & { pods: number; totalMs: number };
  /** The slowest pod's legs (ms). */
  slowest: Record<Stage, number> & { totalMs: number };
}

const stageNames = Object.keys(STAGES) as Stage[];

function legs(path: PodPath): Record<Stage, number> | undefined {
  const out = {} as Record<Stage, number>;
  for (const stage of stageNames) {
    const [from, to] = STAGES[stage];
    const a = path[from];
    const b = path[to];
    if (a === undefined || b === undefined) return undefined;
    out[stage] = b - a;
  }
  return out;
}

const total = (l: Record<Stage, number>): number => stageNames.reduce((sum, s) => sum + l[s], 0);
const roundedLegs = (l: Record<Stage, number>): Record<Stage, number> => Object.fromEntries(stageNames.map((s) => [s, round(l[s])])) as Record<Stage, number>;

/** Splits the pods' startup latency into its legs; pods missing a point are left out. */
export function startupStages(paths: readonly PodPath[]): StageFigures | undefined {
  const all = paths.map(legs).filter((l): l is Record<Stage, number> => l !== undefined);
  if (all.length === 0) return undefined;
  const byTotal = [...all].sort((a, b) => total(a) - total(b));
  const tail = byTotal.slice(Math.min(byTotal.length - 1, Math.floor(byTotal.length * 0.99)));
  const mean = (s: Stage): number => round(tail.reduce((sum, l) => sum + l[s], 0) / tail.length);
  const slowest = byTotal[byTotal.length - 1]!;
  return {
    pods: all.length,
    stages: Object.fromEntries(stageNames.map((s) => [s, { p50: round(median(all.map((l) => l[s]))), p99: round(percentile(all.map((l) => l[s]), 99)) }])) as StageFigures['stages'],
    tail: { ...(Object.fromEntries(stageNames.map((s) => [s, mean(s)])) as Record<Stage, number>), pods: tail.length, totalMs: round(tail.reduce((sum, l) => sum + total(l), 0) / tail.length) },
    slowest: { ...roundedLegs(slowest), totalMs: round(total(slowest)) },
  };
}
