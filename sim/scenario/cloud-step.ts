import { CONTROL_PLANE_LEASES, type Leaders } from '../clouds/leaders.js';
import type { Fields } from './fields.js';
import type { Verdict } from './judge.js';
import type { CloudStep, LeadersExpectation } from './types.js';

/*
 * Scenarios with several clouds: the `cloud` step (`cloud: { kill: leader }`, `cloud: { start:
 * killed }`) and the `leaders` expectation (who holds the kube-system Leases).
 */

/** What a scenario acts on when it runs several clouds. */
export interface ScenarioClouds {
  readonly names: readonly string[];
  /** Kills (-9) or starts the cloud; resolves with what was done, in words. */
  act(step: CloudStep): Promise<string>;
  leadership(): Promise<Leadership>;
}

export interface Leadership {
  leaders: Leaders;
  running: readonly string[];
  /** The cloud the last `cloud: { kill }` killed. */
  killed?: string;
}

export const cloudNames = (count: number): string[] => Array.from({ length: count }, (_, i) => `cloud-${i + 1}`);

/** `cloud: { kill: leader | killed | cloud-N }` or `cloud: { start: … }`; only in a scenario of `clouds` ≥ 2. */
export function parseCloudStep(f: Fields, clouds: number): CloudStep | undefined {
  f.only(['cloud']);
  const inner = f.nested('cloud');
  if (!inner) return undefined;
  inner.only(['kill', 'start']);
  const actions = (['kill', 'start'] as const).filter((a) => inner.has(a));
  if (actions.length !== 1) return f.problem('cloud', 'expected exactly one of kill, start');
  const action = actions[0]!;
  const target = inner.string(action, true);
  const known = ['leader', 'killed', ...cloudNames(clouds)];
  if (clouds < 2) return f.problem('cloud', 'a scenario with one cloud has no other to fail over to: set clouds: 2 or more');
  if (target === undefined) return undefined;
  if (!known.includes(target)) return inner.problem(action, `"${target}" is not one of ${known.join(', ')}`);
  return { kind: 'cloud', action, target };
}

export function parseLeadersExpectation(f: Fields): LeadersExpectation | undefined {
  const asked = { held: f.bool('held'), sole: f.bool('sole'), moved: f.bool('moved') };
  if (Object.values(asked).every((v) => v === undefined)) return f.problem(undefined, 'say what to expect of the leaders: held, sole or moved');
  const out: LeadersExpectation = { kind: 'leaders' };
  for (const [key, value] of Object.entries(asked)) if (value !== undefined) Object.assign(out, { [key]: value });
  return out;
}

export const describeCloudStep = (step: CloudStep): string => `${step.action === 'kill' ? 'kill -9' : 'start'} ${step.target === 'leader' ? 'the leading cloud' : step.target === 'killed' ? 'the cloud killed last' : step.target}`;

export function describeLeaders(e: LeadersExpectation): string {
  const asked = [
    ...(e.held === undefined ? [] : [e.held ? 'every Lease held by a running cloud' : 'a Lease free or held by a cloud that does not run']),
    ...(e.sole === undefined ? [] : [e.sole ? 'one cloud holds every Lease' : 'the Leases are split']),
    ...(e.moved === undefined ? [] : [e.moved ? 'none held by the cloud killed last' : 'a Lease still held by the cloud killed last']),
  ];
  return `leaders of ${CONTROL_PLANE_LEASES.join(', ')}: ${asked.join(', ')}`;
}

/** Whether the holders are as expected; `seen` names each Lease's holder (the report keeps it). Pure. */
export function judgeLeaders(e: LeadersExpectation, l: Leadership): Verdict {
  const holders = Object.values(l.leaders);
  const facts = {
    held: holders.every((h) => h !== undefined && l.running.includes(h)),
    sole: new Set(holders).size === 1 && holders[0] !== undefined,
    moved: l.killed !== undefined && holders.every((h) => h !== l.killed),
  };
  const ok = (['held', 'sole', 'moved'] as const).every((k) => e[k] === undefined || e[k] === facts[k]);
  const named = CONTROL_PLANE_LEASES.map((lease) => `${lease}: ${l.leaders[lease] ?? 'none'}`).join(', ');
  return { ok, seen: `${named}${l.killed ? `; killed last: ${l.killed}` : ''}` };
}
