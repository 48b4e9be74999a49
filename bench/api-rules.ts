import { pathToFileURL } from 'node:url';
import type { WriteRules } from '../cloud/apiserver/write-rules.js';
import type { Pod } from '../shared/types.js';
import { interleavedRounds } from './interleave.js';
import { pacedCalls } from './paced-calls.js';
import { CREATED_NAMESPACE, LISTED_NAMESPACE, startRulesArm, type RulesArm } from './rules-arm.js';
import { benchPod } from './scale-cluster.js';
import { compareRounds, median, percentile, round, type RoundsComparison } from './stats.js';

/*
 * What kube-apiserver's write rules cost (issue 23): two apiservers in this process, one with
 * validation (fieldValidation, typed validation) and field ownership (managedFields, apply's
 * conflicts and pruning), one without (bench/rules-arm.ts), each holding `pods` pods on its own
 * embedded durable store. Rounds alternate between them, in an order rotated each round; in
 * each, over HTTP as kubectl sends them: every prefilled pod listed unpaged and in pages of
 * `pageSize`, then creates, merge patches and server-side applies at `inFlight` at once.
 * Medians over rounds, and on / off of each (bench/stats.ts compareRounds).
 */

export interface ApiRulesOptions {
  pods?: number;
  rounds?: number;
  /** Creates, and as many merge patches and applies, per round. */
  mutations?: number;
  inFlight?: number;
  pageSize?: number;
  /** Full lists of each kind (unpaged, paged) per round; the round's figure is their median. */
  lists?: number;
  log?: (line: string) => void;
}

/** One arm's round, ms. */
export interface RulesRound {
  mutatingP50Ms: number;
  mutatingP99Ms: number;
  createP99Ms: number;
  patchP99Ms: number;
  applyP99Ms: number;
  listMs: number;
  pagedListMs: number;
}

type Figure = keyof RulesRound;
const FIGURES: Figure[] = ['mutatingP50Ms', 'mutatingP99Ms', 'createP99Ms', 'patchP99Ms', 'applyP99Ms', 'listMs', 'pagedListMs'];

export interface ApiRulesReport {
  settings: Required<Omit<ApiRulesOptions, 'log'>>;
  /** Medians over rounds, and each round's figures. */
  on: Record<Figure, number> & { rounds: RulesRound[] };
  off: Record<Figure, number> & { rounds: RulesRound[] };
  /** Rules on / rules off. */
  onVsOff: Record<Figure, RoundsComparison>;
}

const ARMS: { name: 'on' | 'off'; rules: WriteRules }[] = [
  { name: 'on', rules: { validation: true, fieldOwnership: true } },
  { name: 'off', rules: { validation: false, fieldOwnership: false } },
];

const relabelled = (name: string, tag: string): Pod => {
  const pod = benchPod(name);
  return { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, applied: tag } } };
};

async function timedLists(arm: RulesArm, s: ApiRulesReport['settings'], limit?: number): Promise<number> {
  const times = await pacedCalls(s.lists, 1, async () => {
    const items = await arm.http.listAll(LISTED_NAMESPACE, limit);
    if (items !== s.pods) throw new Error(`listed ${items} pods of ${s.pods}`);
  });
  return median(times);
}

/** Patches go to the first half of the prefilled pods, applies to the second, so that no apply meets the patches' manager. */
const target = (arm: RulesArm, half: 0 | 1, n: number): string => {
  const size = Math.floor(arm.names.length / 2);
  return arm.names[half * size + (n % size)]!;
};

export async function rulesRound(arm: RulesArm, s: ApiRulesReport['settings'], tag: string, roundIndex: number): Promise<RulesRound> {
  const listMs = await timedLists(arm, s);
  const pagedListMs = await timedLists(arm, s, s.pageSize);
  const at = (i: number): number => roundIndex * s.mutations + i;
  const creates = await pacedCalls(s.mutations, s.inFlight, (i) => arm.http.create(CREATED_NAMESPACE, benchPod(`${tag}-${i}`)));
  const patches = await pacedCalls(s.mutations, s.inFlight, (i) => arm.http.mergePatch(LISTED_NAMESPACE, target(arm, 0, at(i)), { metadata: { labels: { patched: tag } } }));
  const applies = await pacedCalls(s.mutations, s.inFlight, (i) => arm.http.apply(LISTED_NAMESPACE, relabelled(target(arm, 1, at(i)), tag)));
  const all = [...creates, ...patches, ...applies];
  const p99 = (xs: number[]): number => round(percentile(xs, 99));
  return {
    mutatingP50Ms: round(percentile(all, 50)),
    mutatingP99Ms: p99(all),
    createP99Ms: p99(creates),
    patchP99Ms: p99(patches),
    applyP99Ms: p99(applies),
    listMs: round(listMs),
    pagedListMs: round(pagedListMs),
  };
}

const medians = (rounds: RulesRound[]): Record<Figure, number> => Object.fromEntries(FIGURES.map((f) => [f, median(rounds.map((r) => r[f]))])) as Record<Figure, number>;

const DEFAULTS: ApiRulesReport['settings'] = { pods: 10_000, rounds: 7, mutations: 300, inFlight: 16, pageSize: 500, lists: 3 };

export async function runApiRulesBench(options: ApiRulesOptions = {}): Promise<ApiRulesReport> {
  const { log = () => {}, ...given } = options;
  const settings = { ...DEFAULTS, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) };
  const arms: RulesArm[] = [];
  try {
    for (const { name, rules } of ARMS) {
      log(`api-rules: rules ${name}: ${settings.pods} pods created`);
      arms.push(await startRulesArm(rules, settings.pods, settings.inFlight));
    }
    for (const arm of arms) await rulesRound(arm, { ...settings, mutations: Math.min(50, settings.mutations), lists: 1 }, 'warmup', 0);
    log(`api-rules: ${settings.rounds} rounds on each, interleaved`);
    const [on, off] = await interleavedRounds(arms.length, settings.rounds, (i, r) => rulesRound(arms[i]!, settings, `r${r}`, r));
    return {
      settings,
      on: { ...medians(on!), rounds: on! },
      off: { ...medians(off!), rounds: off! },
      onVsOff: Object.fromEntries(FIGURES.map((f) => [f, compareRounds(off!.map((r) => r[f]), on!.map((r) => r[f]))])) as Record<Figure, RoundsComparison>,
    };
  } finally {
    for (const arm of arms) await arm.close();
  }
}

export function formatApiRules(r: ApiRulesReport): string {
  const s = r.settings;
  const head = `${s.pods} pods; ${s.rounds} rounds; ${s.mutations} creates, merge patches and applies each per round at ${s.inFlight} in flight; pages of ${s.pageSize}`;
  const rows = FIGURES.map((f) => {
    const c = r.onVsOff[f];
    return [f, r.on[f], r.off[f], `${c.ratio} (per round ${c.medianRoundRatio}, p ${c.p})`].join(' | ');
  });
  return [head, 'figure (ms) | rules on | rules off | on / off', ...rows].join('\n');
}

/** node dist/bench/api-rules.js [pods] [rounds]: a smaller run, e.g. `2000 3`. */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [pods, rounds] = process.argv.slice(2).map(Number);
  const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);
  process.stdout.write(formatApiRules(await runApiRulesBench({ pods: pods || undefined, rounds: rounds || undefined, log })) + '\n');
}
