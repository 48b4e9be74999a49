import { describe, expect, it } from 'vitest';
import { planPods, type ActualPods, type PodAction } from '../../edge/edged/plan-pods.js';
import { derivePodStatus } from '../../edge/edged/pod-status.js';
import type { Pod } from '../../shared/types.js';
import { container, pod, sandbox, statusInput } from '../edge/fixtures.js';

/** An action as a table can say it (an hour in: every back-off is over). */
function summary(desired: Pod[], actual: ActualPods): string[] {
  return planPods(desired, actual, 3_600_000).map((a: PodAction) => {
    switch (a.type) {
      case 'startContainer':
        return `start ${a.pod.metadata.uid}/${a.container.name}#${a.attempt}`;
      case 'removeContainer':
        return `remove ${a.containerId} (${a.reason})`;
      default:
        return a.type;
    }
  });
}

/** Created by an edge process that was killed before it started it: `created`, and nothing on its way. */
const neverStarted = (fields = {}) => container('u1', { state: 'created', startedAt: undefined, ready: false, ...fields });
const exited = (attempt: number, exitCode = 1) => container('u1', { attempt, state: 'exited', exitCode, finishedAt: 1, ready: false });
const inits = { initContainers: [{ name: 'init', image: 'busybox' }] };

const cases: { name: string; desired: Pod; containers: ReturnType<typeof container>[]; expected: string[] }[] = [
  {
    name: 'a container created but never started is replaced by the next attempt',
    desired: pod('p', 'u1'),
    containers: [neverStarted()],
    expected: ['remove c-u1-app-0 (created but never started)', 'start u1/app#1'],
  },
  {
    name: 'whatever the restart policy: Never too (it never ran)',
    desired: pod('p', 'u1', { restartPolicy: 'Never' }),
    containers: [neverStarted()],
    expected: ['remove c-u1-app-0 (created but never started)', 'start u1/app#1'],
  },
  {
    name: 'after an earlier run: that run stays (lastState, back-off), older ones go',
    desired: pod('p', 'u1'),
    containers: [exited(0), exited(1), neverStarted({ attempt: 2 })],
    expected: ['remove c-u1-app-2 (created but never started)', 'start u1/app#3', 'remove c-u1-app-0 (superseded by a newer attempt)'],
  },
  {
    name: 'an init container created but never started is replaced too',
    desired: pod('p', 'u1', inits),
    containers: [neverStarted({ name: 'init' })],
    expected: ['remove c-u1-init-0 (created but never started)', 'start u1/init#1'],
  },
  {
    name: 'a started container not running yet (a simulated start delay) is waited for',
    desired: pod('p', 'u1'),
    containers: [neverStarted({ starting: true })],
    expected: [],
  },
  {
    name: 'a sandbox made and no container yet: every container starts',
    desired: pod('p', 'u1', { containers: [{ name: 'app' }, { name: 'side' }] }),
    containers: [],
    expected: ['start u1/app#0', 'start u1/side#0'],
  },
];

describe('an edge killed between creating a container and starting it', () => {
  it.each(cases)('$name', ({ desired, containers, expected }) => {
    expect(summary([desired], { sandboxes: [sandbox('u1')], containers })).toEqual(expected);
  });

  it('shows the container ContainerCreating until its replacement runs', () => {
    const status = derivePodStatus(statusInput(0, { containers: [neverStarted()] }));
    expect(status.containerStatuses![0]!.state).toEqual({ waiting: { reason: 'ContainerCreating' } });
  });
});
