import { describe, expect, it } from 'vitest';
import { judgeLeaders } from '../../sim/scenario/cloud-step.js';
import { describeStep } from '../../sim/scenario/describe.js';
import { parseScenario } from '../../sim/scenario/parse.js';
import { leadingCloud, type Leaders } from '../../sim/clouds/leaders.js';
import { problemsOf } from './scenario-problems.js';

const doc = (clouds: number | undefined, ...steps: unknown[]): unknown => ({ name: 'clouds', description: 'A test.', ...(clouds !== undefined && { clouds }), steps });
const leaders = (scheduler?: string, controllerManager?: string, hub?: string): Leaders => ({ 'kube-scheduler': scheduler, 'kube-controller-manager': controllerManager, 'kedge-hub': hub });

describe('scenarios with several clouds: the cloud step and the leaders expectation', () => {
  it('parses clouds, `cloud: { kill: leader }`, `cloud: { start: killed }` and `expect: leaders`', () => {
    const s = parseScenario(doc(3, { cloud: { kill: 'leader' } }, { cloud: { start: 'killed' } }, { cloud: { kill: 'cloud-2' } }, { expect: 'leaders', held: true, moved: true, within: '1m' }), 'x.yaml');
    expect(s.clouds).toBe(3);
    expect(s.steps.slice(0, 3)).toEqual([
      { kind: 'cloud', action: 'kill', target: 'leader' },
      { kind: 'cloud', action: 'start', target: 'killed' },
      { kind: 'cloud', action: 'kill', target: 'cloud-2' },
    ]);
    expect(s.steps[3]).toMatchObject({ kind: 'expect', expectation: { kind: 'leaders', held: true, moved: true } });
    expect(s.steps.map(describeStep).slice(0, 2)).toEqual(['kill -9 the leading cloud', 'start the cloud killed last']);
    expect(parseScenario(doc(undefined, { wait: '1s' }), 'x.yaml').clouds, 'one cloud: left out').toBeUndefined();
  });

  it('refuses a cloud step with one cloud, an unknown cloud, two actions, and a leaders expectation that asks nothing', () => {
    expect(problemsOf(doc(undefined, { cloud: { kill: 'leader' } }))).toEqual(['step 1 (cloud), field "cloud": a scenario with one cloud has no other to fail over to: set clouds: 2 or more']);
    expect(problemsOf(doc(2, { cloud: { kill: 'cloud-3' } }))).toEqual(['step 1 (cloud), field "cloud.kill": "cloud-3" is not one of leader, killed, cloud-1, cloud-2']);
    expect(problemsOf(doc(2, { cloud: { kill: 'leader', start: 'killed' } }))).toEqual(['step 1 (cloud), field "cloud": expected exactly one of kill, start']);
    expect(problemsOf(doc(2, { expect: 'leaders' }))).toEqual(['step 1 (expect: leaders): say what to expect of the leaders: held, sole or moved']);
    expect(problemsOf(doc(9, { wait: '1s' }))).toEqual(['scenario, field "clouds": expected a whole number from 1 to 5, got 9']);
  });

  it('judges the holders and names each, with the cloud killed last', () => {
    const running = ['cloud-2', 'cloud-3'];
    const after = { leaders: leaders('cloud-2', 'cloud-3', 'cloud-2'), running, killed: 'cloud-1' };
    expect(judgeLeaders({ kind: 'leaders', held: true, moved: true }, after)).toEqual({
      ok: true,
      seen: 'kube-scheduler: cloud-2, kube-controller-manager: cloud-3, kedge-hub: cloud-2; killed last: cloud-1',
    });
    expect(judgeLeaders({ kind: 'leaders', sole: true }, after).ok, 'split').toBe(false);
    const stale = { leaders: leaders('cloud-1', 'cloud-3', 'cloud-2'), running, killed: 'cloud-1' };
    expect(judgeLeaders({ kind: 'leaders', moved: true }, stale).ok, 'the scheduler Lease still names the dead cloud').toBe(false);
    expect(judgeLeaders({ kind: 'leaders', held: true }, stale).ok, 'its holder does not run').toBe(false);
    expect(judgeLeaders({ kind: 'leaders', held: true }, { leaders: leaders('cloud-2', undefined, 'cloud-2'), running }).ok, 'a free Lease').toBe(false);
  });

  it('takes the leader to be the cloud holding the most Leases, the hub holder on a tie', () => {
    expect(leadingCloud(leaders('cloud-1', 'cloud-1', 'cloud-1'))).toBe('cloud-1');
    expect(leadingCloud(leaders('cloud-2', 'cloud-2', 'cloud-3'))).toBe('cloud-2');
    expect(leadingCloud(leaders('cloud-1', 'cloud-2', 'cloud-3'))).toBe('cloud-3');
    expect(leadingCloud(leaders())).toBeUndefined();
  });
});
