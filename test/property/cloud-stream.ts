import { EnvelopeStamper, type ApplyMessage, type DeleteMessage, type ObjectRef } from '../../shared/protocol/envelope.js';
import type { Pod, PodPhase } from '../../shared/types.js';

export { mulberry32 } from '../support/random.js';

export type Rng = () => number;
const below = (rng: Rng, n: number): number => Math.floor(rng() * n);
const pick = <T>(rng: Rng, items: readonly T[]): T => items[below(rng, items.length)]!;

export type ObjectMessage = ApplyMessage | DeleteMessage;

/** What the cloud wants the node to hold at the end: uid → the pod at its last version. */
export type Model = Map<string, Pod>;

/** Pods that share names across namespaces, so the same-name rule is exercised both ways. */
const KEYS = [
  ['default', 'web'],
  ['default', 'db'],
  ['default', 'cache'],
  ['other', 'web'],
] as const;
const PHASES: PodPhase[] = ['Pending', 'Running', 'Failed'];

/**
 * A random history of a handful of pods as the cloud emits it for one node: creates, updates
 * (each at a new, higher store revision), graceful deletes (an apply with deletionTimestamp,
 * then the delete), deletes, and re-creates under the same name with a new uid.
 * Returns the in-order messages and what the node should hold after them.
 */
export function cloudHistory(rng: Rng, seed: number): { messages: ObjectMessage[]; model: Model } {
  const stamper = new EnvelopeStamper('cloud', `c${seed}`);
  const live = new Map<string, Pod>(); // namespace/name → pod
  const messages: ObjectMessage[] = [];
  let revision = 100;
  let uids = 0;
  const refOf = (p: Pod, rv: string): ObjectRef => ({ kind: 'Pod', namespace: p.metadata.namespace!, name: p.metadata.name!, uid: p.metadata.uid!, resourceVersion: rv });
  const apply = (p: Pod): void => {
    messages.push(stamper.stamp({ type: 'apply', ref: refOf(p, p.metadata.resourceVersion!), body: structuredClone(p) }) as ApplyMessage);
  };
  const steps = 5 + below(rng, 40);
  for (let i = 0; i < steps; i++) {
    const [namespace, name] = pick(rng, KEYS);
    const key = `${namespace}/${name}`;
    const current = live.get(key);
    const roll = rng();
    if (!current) {
      const uid = `${name}-${++uids}`;
      const pod: Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { namespace, name, uid, resourceVersion: String(++revision), labels: { step: String(i) } },
        spec: { nodeName: 'edge-1', containers: [{ name: 'app', image: `img:${revision}` }] },
      };
      if (rng() < 0.5) pod.status = { phase: 'Pending' };
      live.set(key, pod);
      apply(pod);
    } else if (roll < 0.55) {
      const next = structuredClone(current);
      next.metadata.resourceVersion = String(++revision);
      next.spec.containers[0]!.image = `img:${revision}`;
      if (rng() < 0.5) next.status = { phase: pick(rng, PHASES) };
      live.set(key, next);
      apply(next);
    } else {
      if (roll < 0.75 && !current.metadata.deletionTimestamp) {
        const terminating = structuredClone(current);
        terminating.metadata.resourceVersion = String(++revision);
        terminating.metadata.deletionTimestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
        apply(terminating);
      }
      messages.push(stamper.stamp({ type: 'delete', ref: refOf(current, String(++revision)) }) as DeleteMessage);
      live.delete(key);
    }
  }
  return { messages, model: new Map([...live.values()].map((p) => [p.metadata.uid!, p])) };
}

/**
 * What MQTT and the cloud's outbox may make of the stream: a message superseded by a later one
 * for the same uid may never be sent (the outbox keeps only the newest), any message may
 * arrive several times, a stale copy of an earlier message may arrive late, and the order is
 * shuffled — locally or completely. Every message that is the last for its uid arrives.
 */
export function perturb(rng: Rng, messages: readonly ObjectMessage[]): ObjectMessage[] {
  const lastFor = new Map(messages.map((m, i) => [m.ref.uid, i]));
  const out: { key: number; message: ObjectMessage }[] = [];
  const spread = pick(rng, [1, 3, 8, messages.length * 2]);
  const place = (message: ObjectMessage, at: number): void => void out.push({ key: at + rng() * spread, message });
  messages.forEach((m, i) => {
    const superseded = lastFor.get(m.ref.uid) !== i;
    if (superseded && rng() < 0.25) return; // coalesced away by the cloud's outbox
    place(m, i);
    while (rng() < 0.3) place(m, i + below(rng, messages.length)); // duplicate, maybe much later
    if (i > 0 && rng() < 0.2) place(messages[below(rng, i)]!, i + rng() * 4); // a stale one injected
  });
  return out.sort((a, b) => a.key - b.key).map((o) => o.message);
}
