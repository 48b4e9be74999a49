import { describe, expect, it } from 'vitest';
import { behaviourFrom } from '../../edge/runtime/sim-behaviour.js';
import { commandEnd, type CommandInput } from '../../edge/runtime/sim-command.js';

const FOREVER = undefined;
const ends = (afterMs: number, exitCode = 0) => ({ afterMs, exitCode });

describe('commandEnd: what a simulated container does with its command', () => {
  it.each<[string, CommandInput, ReturnType<typeof commandEnd>]>([
    ['busybox with no command: sh, no stdin: ends at once', { image: 'busybox' }, ends(0)],
    ['docker.io/library/alpine:3.20 likewise', { image: 'docker.io/library/alpine:3.20' }, ends(0)],
    ['ubuntu with a tty keeps its shell', { image: 'ubuntu', tty: true }, FOREVER],
    ['busybox with stdin keeps its shell', { image: 'busybox', stdin: true }, FOREVER],
    ['an unknown image runs until stopped', { image: 'nginx' }, FOREVER],
    ['args replace the image default', { image: 'busybox', args: ['sleep', '5'] }, ends(5_000)],
    ['sleep 30', { image: 'nginx', command: ['sleep', '30'] }, ends(30_000)],
    ['sleep 1.5m', { command: ['/bin/sleep', '1.5m'] }, ends(90_000)],
    ['sleep infinity', { command: ['sleep', 'infinity'] }, FOREVER],
    ['true', { command: ['true'] }, ends(0)],
    ['false', { command: ['false'] }, ends(0, 1)],
    ['echo', { command: ['echo', 'hello'] }, ends(0)],
    ['sh -c with sleeps then echo', { command: ['sh', '-c', 'sleep 2; sleep 3 && echo done'] }, ends(5_000)],
    ['sh -c ending in exit 3', { command: ['/bin/sh', '-c', 'date; exit 3'] }, ends(0, 3)],
    ['sh -c with a loop', { command: ['sh', '-c', 'while true; do sleep 1; done'] }, FOREVER],
    ['sh -c ending in an unknown program', { command: ['sh', '-c', 'echo start; exec nginx'] }, FOREVER],
    ['perl -e (the pi Job of the Kubernetes docs)', { image: 'perl', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }, ends(0)],
    ['python -c', { image: 'python', command: ['python3', '-c', 'print(1)'] }, ends(0)],
    ['python running a script file', { image: 'python', command: ['python3', 'serve.py'] }, FOREVER],
  ])('%s', (_name, input, expected) => {
    expect(commandEnd(input)).toEqual(expected);
  });
});

describe('behaviourFrom with a command', () => {
  it('ends when the command ends, scaled like every duration', () => {
    expect(behaviourFrom({}, 200, 10, ends(30_000, 2))).toMatchObject({ crashAfterMs: 3_000, exitCode: 2 });
  });

  it('annotations win: crash-after replaces the command, exit-code its code', () => {
    expect(behaviourFrom({ 'kedge.io/crash-after': '1s' }, 200, 1, ends(30_000, 0))).toMatchObject({ crashAfterMs: 1_000, exitCode: 1 });
    expect(behaviourFrom({ 'kedge.io/exit-code': '4' }, 200, 1, ends(5_000, 0))).toMatchObject({ crashAfterMs: 5_000, exitCode: 4 });
  });

  it('a command that never ends leaves the container running', () => {
    expect(behaviourFrom({}, 200, 1, undefined).crashAfterMs).toBeUndefined();
  });
});
