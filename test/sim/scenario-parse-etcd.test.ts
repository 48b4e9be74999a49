import { describe, expect, it } from 'vitest';
import { describeStep } from '../../sim/scenario/describe.js';
import { parseScenario } from '../../sim/scenario/parse.js';
import { judgeRead, judgeWrite, judgeWritten } from '../../sim/scenario/quorum-probes.js';
import { problemsOf, withSteps } from './scenario-problems.js';

const onEtcd = (...steps: unknown[]): unknown => ({ name: 'demo', description: 'A test.', etcd: 3, steps });

describe('scenario files on etcd: what parses', () => {
  it('reads etcd: N, the etcd step and the write, written and read expectations', () => {
    const s = parseScenario(
      onEtcd(
        { etcd: { member: 'etcd-1', action: 'stop' } },
        { etcd: { member: 'etcd-2', action: 'kill' } },
        { etcd: { member: 'etcd-1', action: 'start' } },
        { expect: 'write', succeeds: true, measure: 'first write' },
        { expect: 'write', succeeds: false, status: 504, within: '1m' },
        { expect: 'written' },
        { expect: 'read', consistency: 'linearizable', answers: false },
        { expect: 'read', consistency: 'serializable' },
      ),
      'test.yaml',
    );
    expect(s.etcd).toBe(3);
    expect(s.steps.slice(0, 3)).toEqual([
      { kind: 'etcd', member: 'etcd-1', action: 'stop' },
      { kind: 'etcd', member: 'etcd-2', action: 'kill' },
      { kind: 'etcd', member: 'etcd-1', action: 'start' },
    ]);
    expect(s.steps.slice(3).map((st) => (st.kind === 'expect' ? st.expectation : st))).toEqual([
      { kind: 'write', succeeds: true },
      { kind: 'write', succeeds: false, status: 504 },
      { kind: 'written' },
      { kind: 'read', consistency: 'linearizable', answers: false },
      { kind: 'read', consistency: 'serializable' },
    ]);
    expect(s.steps.map(describeStep)).toEqual([
      'stop etcd member etcd-1',
      'kill etcd member etcd-2',
      'start etcd member etcd-1',
      'expect a write through the API is acknowledged',
      'expect a write through the API fails with HTTP 504 within 1m',
      'expect every acknowledged write is still there',
      'expect a linearizable read: no etcd member answers',
      'expect a serializable read: which etcd members answer',
    ]);
  });

  it('runs on the embedded store without etcd, and writes need no etcd', () => {
    const s = parseScenario(withSteps({ expect: 'write', succeeds: true }, { expect: 'written' }), 'test.yaml');
    expect(s.etcd).toBeUndefined();
  });
});

describe('scenario files on etcd: what does not, and how it is told', () => {
  it.each([
    ['etcd out of range', { name: 'demo', description: 'A test.', etcd: 8, steps: [{ wait: '1s' }] }, 'scenario, field "etcd": expected a whole number from 1 to 7, got 8'],
    ['an etcd step without etcd', withSteps({ etcd: { member: 'etcd-0', action: 'stop' } }), 'step 1 (etcd), field "etcd": this scenario runs on the embedded store: give it etcd: N (1 to 7) at the top to run on an etcd cluster'],
    ['a member beyond the cluster', onEtcd({ etcd: { member: 'etcd-3', action: 'stop' } }), 'step 1 (etcd), field "etcd.member": "etcd-3" is not a member of this scenario\'s etcd cluster (etcd-0, etcd-1, etcd-2)'],
    ['an unknown action', onEtcd({ etcd: { member: 'etcd-0', action: 'pause' } }), 'step 1 (etcd), field "etcd.action": expected one of stop, start, kill, got "pause"'],
    ['an etcd step that is a name', onEtcd({ etcd: 'etcd-0' }), 'step 1 (etcd), field "etcd": expected a mapping, got "etcd-0"'],
    ['an unknown field of the etcd step', onEtcd({ etcd: { member: 'etcd-0', action: 'stop', grace: '1s' } }), 'step 1 (etcd), field "etcd.grace": unknown field (allowed here: member, action)'],
    ['a write without succeeds', onEtcd({ expect: 'write' }), 'step 1 (expect: write), field "succeeds": required'],
    ['a status on a write that succeeds', onEtcd({ expect: 'write', succeeds: true, status: 503 }), 'step 1 (expect: write), field "status": a status goes with succeeds: false'],
    ['a read without etcd', withSteps({ expect: 'read', consistency: 'serializable' }), 'step 1 (expect: read), field "expect": reads etcd directly: give the scenario etcd: N (1 to 7) at the top'],
    ['a read of unknown consistency', onEtcd({ expect: 'read', consistency: 'quorum' }), 'step 1 (expect: read), field "consistency": expected one of linearizable, serializable, got "quorum"'],
    ['written with a field', onEtcd({ expect: 'written', count: 3 }), 'step 1 (expect: written), field "count": unknown field (allowed here: expect, within, for, measure, bytes)'],
  ])('%s', (_, doc, problem) => {
    expect(problemsOf(doc)).toEqual([problem]);
  });
});

describe('judging the quorum probes', () => {
  it('a write: acknowledged, or failed with the status and the words the cloud gave', () => {
    const failed = { ok: false as const, name: 'quorum-probe-4', status: 504, message: 'etcd: 4 DEADLINE_EXCEEDED', ms: 10_000 };
    expect(judgeWrite({ kind: 'write', succeeds: true }, { ok: true, name: 'quorum-probe-1', ms: 40 })).toEqual({ ok: true, seen: 'configmap/quorum-probe-1 created in 40ms' });
    expect(judgeWrite({ kind: 'write', succeeds: true }, failed)).toEqual({ ok: false, seen: 'configmap/quorum-probe-4 not created: HTTP 504 after 10s: etcd: 4 DEADLINE_EXCEEDED' });
    expect(judgeWrite({ kind: 'write', succeeds: false }, failed).ok).toBe(true);
    expect(judgeWrite({ kind: 'write', succeeds: false, status: 503 }, failed).ok).toBe(false);
    expect(judgeWrite({ kind: 'write', succeeds: false }, { ok: false, name: 'quorum-probe-5', message: 'no answer within 15 s', ms: 15_000 }).seen).toBe('configmap/quorum-probe-5 not created: after 15s: no answer within 15 s');
  });

  it('written: every acknowledged write there, or those gone named', () => {
    expect(judgeWritten({ acknowledged: 4, missing: [] })).toEqual({ ok: true, seen: 'all 4 acknowledged writes are there' });
    expect(judgeWritten({ acknowledged: 4, missing: ['quorum-probe-2'] })).toEqual({ ok: false, seen: '1 of 4 acknowledged writes are gone: quorum-probe-2' });
  });

  it('a read records which members answered, and holds as asked', () => {
    const reads = [
      { member: 'etcd-0', answered: true, detail: '108 keys at revision 254', ms: 27 },
      { member: 'etcd-1', answered: false, detail: 'connect ECONNREFUSED', ms: 20 },
    ];
    const seen = '1 of 2 answered: etcd-0 answered (108 keys at revision 254, 27ms); etcd-1 did not answer (connect ECONNREFUSED, 20ms)';
    expect(judgeRead({ kind: 'read', consistency: 'serializable' }, reads)).toEqual({ ok: true, seen });
    expect(judgeRead({ kind: 'read', consistency: 'serializable', answers: true }, reads).ok).toBe(true);
    expect(judgeRead({ kind: 'read', consistency: 'serializable', answers: false }, reads).ok).toBe(false);
    expect(judgeRead({ kind: 'read', consistency: 'linearizable', answers: true }, [reads[1]!]).ok).toBe(false);
    expect(judgeRead({ kind: 'read', consistency: 'linearizable' }, [reads[1]!]).ok).toBe(true);
  });
});
