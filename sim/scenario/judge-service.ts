import { parseLabelSelector } from '../../cloud/apiserver/rest/selectors.js';
import type { Pod } from '../../shared/types.js';
import type { Verdict } from './judge.js';
import type { PodRef, ServiceExpectation } from './types.js';

/** One HTTP GET: the status and body it got, or why it got none (refused, reset, timed out). */
export type Reply = { status: number; body: string } | { error: string };

/** The pods a reference names, or why it names none it can tell. */
export type ResolvedRef = { names: string[] } | { problem: string };

const created = (p: Pod): string => p.metadata.creationTimestamp ?? '';

/** The pods a reference names among `pods` (those being deleted left out). Pure. */
export function resolvePodRef(ref: PodRef, pods: readonly Pod[]): ResolvedRef {
  const alive = pods.filter((p) => !p.metadata.deletionTimestamp);
  if ('name' in ref) return alive.some((p) => p.metadata.name === ref.name) ? { names: [ref.name] } : { problem: `no pod ${ref.name}` };
  const matches = parseLabelSelector(ref.selector);
  const matched = alive.filter((p) => matches(p.metadata.labels ?? {})).sort((a, b) => created(b).localeCompare(created(a)));
  if (matched.length === 0) return { problem: `no pod matches ${ref.selector}` };
  if (ref.newest === undefined) return { names: matched.map((p) => p.metadata.name!) };
  const newest = matched.slice(0, ref.newest);
  const next = matched[ref.newest];
  // Timestamps have whole seconds: a tie at the cut cannot say which pods are the newest.
  if (next && created(next) === created(newest.at(-1)!)) return { problem: `cannot tell the newest ${ref.newest} of ${ref.selector}: ${newest.at(-1)!.metadata.name} and ${next.metadata.name} were created in the same second` };
  return { names: newest.map((p) => p.metadata.name!) };
}

/** Whether a pod's name is one of the words of an answer ("echo-7d9f", or "hello from echo-7d9f"). */
const answeredBy = (name: string, body: string): boolean => body.split(/[^a-z0-9.-]+/).includes(name);

/** "echo-a ×6, echo-b ×4" / "refused ×2": each distinct outcome with how often. */
function tally(replies: readonly Reply[]): string {
  const counts = new Map<string, number>();
  for (const r of replies) {
    const key = 'error' in r ? r.error : r.status < 300 ? JSON.stringify(r.body.trim()) : `HTTP ${r.status}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ×${n}`).join(', ');
}

export interface ServiceLook {
  /** Where the requests went. */
  url: string;
  replies: readonly Reply[];
  includes?: ResolvedRef;
  excludes?: ResolvedRef;
}

/** Whether the answers are what the expectation asks; every criterion given must hold. Pure. */
export function judgeService(e: ServiceExpectation, look: ServiceLook): Verdict {
  const bodies = look.replies.flatMap((r) => ('body' in r && r.status >= 200 && r.status < 300 ? [r.body.trim()] : []));
  const distinct = new Set(bodies).size;
  const failed: string[] = [];
  if (e.answers === true && bodies.length < look.replies.length) failed.push('not every request was answered');
  if (e.answers === false && bodies.length > 0) failed.push('some were answered');
  if (e.servedBy && (distinct < e.servedBy.min || distinct > e.servedBy.max)) failed.push(`${distinct} distinct answers`);
  for (const [field, ref] of [['includes', look.includes], ['excludes', look.excludes]] as const) {
    if (!ref) continue;
    if ('problem' in ref) {
      failed.push(ref.problem);
      continue;
    }
    const seen = ref.names.filter((n) => bodies.some((b) => answeredBy(n, b)));
    if (field === 'includes' && seen.length < ref.names.length) failed.push(`${ref.names.filter((n) => !seen.includes(n)).join(', ')} did not answer`);
    if (field === 'excludes' && seen.length > 0) failed.push(`${seen.join(', ')} answered`);
  }
  const summary = `${look.url}: ${bodies.length} of ${look.replies.length} answered${look.replies.length ? ` (${tally(look.replies)})` : ''}`;
  return { ok: failed.length === 0, seen: failed.length === 0 ? summary : `${failed.join('; ')}; ${summary}` };
}
