import type { Fields } from './fields.js';
import type { EtcdStep, Expectation } from './types.js';

/** The most etcd members a scenario (or `kedge demo --etcd`) runs. */
export const MAX_ETCD_MEMBERS = 7;

export const etcdMemberNames = (count: number): string[] => Array.from({ length: count }, (_, i) => `etcd-${i}`);

/** `etcd: { member: etcd-1, action: stop }`: needs the scenario's `etcd: N`. */
export function etcdStep(f: Fields, members: number | undefined): EtcdStep | undefined {
  f.only(['etcd']);
  const inner = f.nested('etcd');
  if (!inner) return undefined;
  inner.only(['member', 'action']);
  const member = inner.string('member', true);
  const action = inner.oneOf('action', ['stop', 'start', 'kill'] as const, true);
  if (members === undefined) return f.problem('etcd', 'this scenario runs on the embedded store: give it etcd: N (1 to 7) at the top to run on an etcd cluster');
  const known = etcdMemberNames(members);
  if (member !== undefined && !known.includes(member)) return inner.problem('member', `"${member}" is not a member of this scenario's etcd cluster (${known.join(', ')})`);
  return member && action ? { kind: 'etcd', member, action } : undefined;
}

/** The write, written and read expectations (the quorum probes). */
export function quorumExpectation(f: Fields, kind: 'write' | 'written' | 'read', members: number | undefined): Expectation | undefined {
  switch (kind) {
    case 'write': {
      const succeeds = f.bool('succeeds', true);
      const status = f.int('status', 400, 599);
      if (succeeds === true && status !== undefined) f.problem('status', 'a status goes with succeeds: false');
      if (succeeds === undefined) return undefined;
      return status === undefined ? { kind, succeeds } : { kind, succeeds, status };
    }
    case 'written':
      return { kind };
    case 'read': {
      const consistency = f.oneOf('consistency', ['linearizable', 'serializable'] as const, true);
      const answers = f.bool('answers');
      if (members === undefined) return f.problem('expect', 'reads etcd directly: give the scenario etcd: N (1 to 7) at the top');
      if (consistency === undefined) return undefined;
      return answers === undefined ? { kind, consistency } : { kind, consistency, answers };
    }
  }
}
