import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { findPython } from '../../edge/runtime/session/find-python.js';
import { SESSION_HELPER_SOURCE } from '../../edge/runtime/session/session-helper.js';
import { waitFor } from '../support/wait.js';
import { groupExists } from './stream-support.js';

describe('the exec session helper', () => {
  it.each(['pipe', 'tty'])('in %s mode kills what it runs when its edge goes away (its control socket closes)', async (mode) => {
    const python = await findPython(process.env.PATH);
    expect(python).toBeDefined();
    const child = spawn(python!, ['-c', SESSION_HELPER_SOURCE, mode, 'sh', '-c', 'sleep 300 & sleep 300'], {
      detached: true,
      stdio: ['pipe', 'pipe', 'ignore', 'pipe'],
    });
    const control = child.stdio[3] as Duplex;
    let told = '';
    control.on('data', (chunk: Buffer) => (told += chunk.toString()));
    const pid = Number(await waitFor(() => /pid (\d+)\n/.exec(told)?.[1], 'the command pid'));
    const group = mode === 'tty' ? pid : child.pid!; // a terminal's command leads its own session
    expect(groupExists(group)).toBe(true);
    control.destroy(); // as when the edge process dies, even by SIGKILL
    await waitFor(() => !groupExists(group) && !groupExists(child.pid!), 'every process gone');
  });
});
