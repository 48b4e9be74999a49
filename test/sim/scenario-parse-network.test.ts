import { describe, expect, it } from 'vitest';
import { describeStep } from '../../sim/scenario/describe.js';
import { parseScenario } from '../../sim/scenario/parse.js';
import { problemsOf, withSteps } from './scenario-problems.js';

describe('scenario files: edge components, services and waiting pods', () => {
  it('reads a component step on an edge, a service expectation with defaults, and the waiting and message filters', () => {
    const s = parseScenario(
      withSteps(
        { stop: 'kube-proxy', node: 'edge-1' },
        { start: 'kedge-cni', node: 'edge-2' },
        { stop: 'scheduler' },
        { expect: 'service', service: 'echo', node: 'edge-1', answers: true },
        { expect: 'service', service: 'echo', namespace: 'shop', node: 'edge-2', port: 'http', path: '/who', requests: 20, servedBy: { min: 1, max: 2 }, includes: 'app=echo', excludes: { selector: 'app=echo', newest: 1 }, within: '30s' },
        { expect: 'service', service: 'echo', node: 'edge-3', servedBy: 3, includes: 'echo-7d9f-abcde', excludes: { name: 'echo-old' }, port: 80 },
        { expect: 'pods', node: 'edge-1', phase: 'Pending', waiting: 'ContainerCreating', message: 'NetworkPluginNotReady', count: 1 },
      ),
      't',
    );
    expect(s.steps.slice(0, 3)).toEqual([
      { kind: 'stop', component: 'kube-proxy', node: 'edge-1' },
      { kind: 'start', component: 'kedge-cni', node: 'edge-2' },
      { kind: 'stop', component: 'scheduler' },
    ]);
    expect(s.steps[3]).toMatchObject({ expectation: { kind: 'service', service: 'echo', namespace: 'default', node: 'edge-1', path: '/', requests: 10, answers: true } });
    expect(s.steps[4]).toMatchObject({
      withinMs: 30_000,
      expectation: { namespace: 'shop', port: 'http', path: '/who', requests: 20, servedBy: { min: 1, max: 2 }, includes: { selector: 'app=echo' }, excludes: { selector: 'app=echo', newest: 1 } },
    });
    expect(s.steps[5]).toMatchObject({ expectation: { port: 80, servedBy: { min: 3, max: 3 }, includes: { name: 'echo-7d9f-abcde' }, excludes: { name: 'echo-old' } } });
    expect(s.steps[6]).toMatchObject({ expectation: { waiting: 'ContainerCreating', message: 'NetworkPluginNotReady' } });
    expect(s.steps.map(describeStep)).toEqual([
      'stop kube-proxy on edge-1',
      'start kedge-cni on edge-2',
      'stop scheduler',
      "expect service echo through edge-1's address and nodePort (10 GET /): answers every request",
      "expect service echo in shop through edge-2's address and nodePort of port http (20 GET /who): 1 to 2 distinct answers, every pod app=echo among them, not the newest pod app=echo within 30s",
      "expect service echo through edge-3's address and nodePort of port 80 (10 GET /): 3 distinct answers, echo-7d9f-abcde among them, not echo-old",
      'expect 1 pod Pending waiting ContainerCreating saying "NetworkPluginNotReady" on edge-1 (as the cloud sees it)',
    ]);
  });

  it.each([
    ['a component on a node beyond the count', withSteps({ stop: 'kube-proxy', node: 'edge-4' }), 'step 1 (stop), field "node": "edge-4" is not a node of this scenario (edge-1, edge-2, edge-3)'],
    ['a component step with another field', withSteps({ start: 'kube-proxy', node: 'edge-1', within: '1s' }), 'step 1 (start), field "within": unknown field (allowed here: start, node)'],
    ['a service without a name', withSteps({ expect: 'service', node: 'edge-1', answers: true }), 'step 1 (expect: service), field "service": required'],
    ['a service without a node', withSteps({ expect: 'service', service: 'echo', answers: true }), 'step 1 (expect: service), field "node": required'],
    ['a service with nothing to judge', withSteps({ expect: 'service', service: 'echo', node: 'edge-1' }), 'step 1 (expect: service): say what to expect of the answers: answers, servedBy, includes or excludes'],
    ['answers as text', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', answers: 'yes' }), 'step 1 (expect: service), field "answers": expected true or false, got "yes"'],
    ['no answers yet served', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', answers: false, servedBy: 2 }), 'step 1 (expect: service), field "answers": answers: false cannot go with includes or a servedBy minimum'],
    ['too many requests', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', answers: true, requests: 5000 }), 'step 1 (expect: service), field "requests": expected a whole number from 1 to 1000, got 5000'],
    ['a relative path', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', answers: true, path: 'who' }), 'step 1 (expect: service), field "path": expected a path starting with /, got "who"'],
    ['a port out of range', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', answers: true, port: 70000 }), 'step 1 (expect: service), field "port": expected a whole number from 1 to 65535, got 70000'],
    ['servedBy as a list', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', servedBy: [1, 2] }), 'step 1 (expect: service), field "servedBy": expected a mapping, got [1,2]'],
    ['servedBy empty', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', servedBy: {} }), 'step 1 (expect: service), field "servedBy": give min, max or both'],
    ['servedBy min above max', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', servedBy: { min: 3, max: 1 } }), 'step 1 (expect: service), field "servedBy.min": min 3 is above max 1'],
    ['an unknown field of servedBy', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', servedBy: { least: 1 } }), 'step 1 (expect: service), field "servedBy.least": unknown field (allowed here: min, max)'],
    ['includes with a bad selector', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', includes: 'app in (echo' }), 'step 1 (expect: service), field "includes": '],
    ['excludes with a name and a selector', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', excludes: { name: 'a', selector: 'app=b' } }), 'step 1 (expect: service), field "excludes": give a pod name or a selector, not both'],
    ['includes as a number', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', includes: 3 }), 'step 1 (expect: service), field "includes": expected a pod\'s name, a selector, or { name } or { selector, newest }, got 3'],
    ['newest without a selector', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', excludes: { name: 'a', newest: 1 } }), 'step 1 (expect: service), field "excludes.newest": newest goes with a selector'],
    ['newest of none', withSteps({ expect: 'service', service: 'echo', node: 'edge-1', includes: { selector: 'app=a', newest: 0 } }), 'step 1 (expect: service), field "includes.newest": expected a whole number from 1 to 100000, got 0'],
    ['a service field on pods', withSteps({ expect: 'pods', count: 1, answers: true }), 'step 1 (expect: pods), field "answers": unknown field'],
    ['waiting as a boolean', withSteps({ expect: 'pods', count: 1, waiting: true }), 'step 1 (expect: pods), field "waiting": expected a non-empty text, got true'],
  ])('%s', (_, doc, message) => {
    const problems = problemsOf(doc);
    expect(problems.some((p) => p.startsWith(message)), JSON.stringify(problems)).toBe(true);
  });
});
