import { describe, expect, it } from 'vitest';
import { PodStartupRecorder } from '../../shared/trace/pod-startup-trace.js';

describe('PodStartupRecorder', () => {
  it('keeps the first time a pod passed each point', () => {
    let now = 100;
    const trace = new PodStartupRecorder(() => now);
    trace.mark('default/a', 'created');
    now = 150;
    trace.mark('default/a', 'created');
    trace.mark('default/a', 'bound');
    expect(trace.snapshot()).toEqual({ 'default/a': { created: 100, bound: 150 } });
  });

  it('holds only the newest pods, however many come', () => {
    const trace = new PodStartupRecorder(() => 1, 2);
    for (const pod of ['a', 'b', 'c']) trace.mark(pod, 'created');
    expect(Object.keys(trace.snapshot())).toEqual(['b', 'c']);
  });

  it('gives copies: a snapshot does not change with later marks', () => {
    let now = 1;
    const trace = new PodStartupRecorder(() => now);
    trace.mark('a', 'created');
    const before = trace.snapshot();
    now = 2;
    trace.mark('a', 'running');
    expect(before).toEqual({ a: { created: 1 } });
  });
});
