import { describe, expect, it } from 'vitest';
import { describeStep } from '../../sim/scenario/describe.js';
import { parseScenario } from '../../sim/scenario/parse.js';
import { NAMED_PROFILES } from '../../sim/link-shape/profile.js';
import { problemsOf, withSteps } from './scenario-problems.js';

describe('scenario files: shaping and flapping a link', () => {
  it('reads shape (a profile, fields, clear) and flap (a schedule, a seed, stop) steps', () => {
    const s = parseScenario(
      withSteps(
        { shape: { node: 'edge-1', profile: 'satellite' } },
        { shape: { node: 'edge-2', latency: '600ms', jitter: '100ms', loss: '2%', rate: '64kbit', rateDown: '1mbit', seed: 3 } },
        { shape: { node: 'edge-1', clear: true } },
        { flap: { node: 'edge-1', down: '5s', every: '30s' } },
        { flap: { node: 'edge-3', down: '2s', every: '10s', seed: 7 } },
        { flap: { node: 'edge-1', stop: true } },
      ),
      't',
    );
    expect(s.steps).toEqual([
      { kind: 'shape', node: 'edge-1', request: { profile: NAMED_PROFILES.satellite } },
      { kind: 'shape', node: 'edge-2', request: { profile: { name: 'custom', latencyMs: 600, jitterMs: 100, lossPercent: 2, rateUpBps: 64_000, rateDownBps: 1_000_000, seed: 3 } } },
      { kind: 'shape', node: 'edge-1', request: { clear: true } },
      { kind: 'flap', node: 'edge-1', request: { schedule: { downMs: 5000, everyMs: 30_000 } } },
      { kind: 'flap', node: 'edge-3', request: { schedule: { downMs: 2000, everyMs: 10_000, seed: 7 } } },
      { kind: 'flap', node: 'edge-1', request: { stop: true } },
    ]);
    expect(s.steps.map(describeStep)).toEqual([
      "shape edge-1's link: satellite (300ms±20ms,loss=1%,up=256kbit,down=256kbit)",
      "shape edge-2's link: custom (600ms±100ms,loss=2%,up=64kbit,down=1mbit)",
      "unshape edge-1's link (and stop any flap)",
      "flap edge-1's link: down 5s every 30s",
      "flap edge-3's link: down 2s every 10s (random, seed 7)",
      "stop flapping edge-1's link",
    ]);
  });

  it.each([
    ['shape as a name', withSteps({ shape: 'edge-1' }), 'step 1 (shape), field "shape": expected a mapping, got "edge-1"'],
    ['shape without a node', withSteps({ shape: { profile: 'satellite' } }), 'step 1 (shape), field "shape.node": required'],
    ['shape on a node beyond the count', withSteps({ shape: { node: 'edge-4', profile: 'lan' } }), 'step 1 (shape), field "shape.node": "edge-4" is not a node of this scenario (edge-1, edge-2, edge-3)'],
    ['an unknown profile', withSteps({ shape: { node: 'edge-1', profile: 'moon' } }), 'step 1 (shape), field "shape.profile": "moon" is not a profile (satellite, 3g, wifi-flaky, lan)'],
    ['a latency past the bound', withSteps({ shape: { node: 'edge-1', latency: '2h' } }), 'step 1 (shape), field "shape.latency": "2h" is more than 1m0s'],
    ['a latency without a unit', withSteps({ shape: { node: 'edge-1', latency: 600 } }), 'step 1 (shape), field "shape.latency": 600 is not a duration such as 600ms or 5s'],
    ['a rate in bytes', withSteps({ shape: { node: 'edge-1', rate: '64kbps' } }), 'step 1 (shape), field "shape.rate": "64kbps" is not a rate such as 64kbit, 1.5mbit or 500000bit'],
    ['nothing to shape by', withSteps({ shape: { node: 'edge-1' } }), 'step 1 (shape): give profile, clear, or at least one of latency, jitter, loss, rate, rateUp, rateDown'],
    ['clear with a field', withSteps({ shape: { node: 'edge-1', clear: true, loss: 1 } }), 'step 1 (shape), field "shape.clear": goes alone (it removes the profile and any flap), not with loss'],
    ['an unknown shape field', withSteps({ shape: { node: 'edge-1', latency: '1s', delay: '1s' } }), 'step 1 (shape), field "shape.delay": unknown field'],
    ['a flap down as long as its period', withSteps({ flap: { node: 'edge-1', down: '30s', every: '30s' } }), 'step 1 (flap), field "flap.every": must be more than down (30s)'],
    ['a flap without down', withSteps({ flap: { node: 'edge-1', every: '30s' } }), 'step 1 (flap), field "flap.down": required: how long the link stays down, such as 5s'],
    ['a flap seed that is not a number', withSteps({ flap: { node: 'edge-1', down: '1s', every: '5s', seed: 'x' } }), 'step 1 (flap), field "flap.seed": "x" is not a whole number from 0 to 4294967295'],
    ['a field beside shape', withSteps({ shape: { node: 'edge-1', profile: 'lan' }, within: '1s' }), 'step 1 (shape), field "within": unknown field (allowed here: shape)'],
  ])('refuses %s', (_what, doc, problem) => {
    const problems = problemsOf(doc);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
  });
});
