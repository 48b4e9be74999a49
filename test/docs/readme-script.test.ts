import { describe, expect, it } from 'vitest';
import { sectionCommands, setsShellState, statedLimitMs, withDemoPorts } from '../support/readme-script.js';

const markdown = [
  '# title', //                                1
  '## Set up', //                              2
  '```sh', //                                  3
  'npm start', //                              4
  '```', //                                    5
  '## With the demo running', //               6
  'Prose with `inline code`.', //              7
  '```sh', //                                  8
  'export KUBECONFIG=.kedge/demo/kubeconfig', // 9
  '', //                                       10
  '# a comment line', //                       11
  'kubectl rollout status deploy/web   # a few seconds (up to 30 s)', // 12
  '```', //                                    13
  '```json', //                                14
  '{ "not": "shell" }', //                     15
  '```', //                                    16
  '### A subsection', //                       17
  '```bash', //                                18
  'bin/kedge fleet --nodes 2 \\', //           19
  '  --time-scale 10                  # within 2 min', // 20
  'curl -s http://127.0.0.1:10551/pods', //    21
  '```', //                                    22
  '## The next section', //                    23
  '```sh', //                                  24
  'bin/kedge scenario list', //                25
  '```', //                                    26
].join('\n');

describe('the README as a script', () => {
  it("takes the shell blocks of one section and its subsections, in order, with each line's number and stated time", () => {
    expect(sectionCommands(markdown, 'With the demo running', 10_000)).toEqual([
      { line: 9, command: 'export KUBECONFIG=.kedge/demo/kubeconfig', limitMs: 10_000 },
      { line: 12, command: 'kubectl rollout status deploy/web   # a few seconds (up to 30 s)', limitMs: 30_000 },
      { line: 19, command: 'bin/kedge fleet --nodes 2 \\\n  --time-scale 10                  # within 2 min', limitMs: 120_000 },
      { line: 21, command: 'curl -s http://127.0.0.1:10551/pods', limitMs: 10_000 },
    ]);
  });

  it('names a missing section', () => {
    expect(() => sectionCommands(markdown, 'Nowhere', 1)).toThrow('README.md has no "## Nowhere" section');
  });

  it('reads "(up to N s)", "within N min" and their spellings, else the default', () => {
    expect(statedLimitMs('x  # (up to 40 s)', 5)).toBe(40_000);
    expect(statedLimitMs('x  # within 1.5 minutes', 5)).toBe(90_000);
    expect(statedLimitMs('x  # up to 3 seconds', 5)).toBe(3000);
    expect(statedLimitMs('x  # answers at once', 5)).toBe(5);
  });

  it("puts the demo's ports in place of whole default ports only", () => {
    const table = [
      { readme: 8080, actual: 40001, what: 'api' },
      { readme: 10551, actual: 40002, what: 'edge-1' },
      { readme: 18080, actual: 40003, what: 'echo' },
    ];
    expect(withDemoPorts('curl 127.0.0.1:18080/hi 127.0.0.1:8080 :10551/pods :105510 x8080', table)).toBe(
      'curl 127.0.0.1:40003/hi 127.0.0.1:40001 :40002/pods :105510 x40001',
    );
  });

  it('carries export, cd and bare assignments to later lines, not commands', () => {
    expect(['export A=1', 'cd /tmp', 'TOKEN=abc', 'TOKEN=abc  # kept'].map(setsShellState)).toEqual([true, true, true, true]);
    expect(['kubectl get pods', 'A=1 kubectl get pods', 'exported'].map(setsShellState)).toEqual([false, false, false]);
  });
});
