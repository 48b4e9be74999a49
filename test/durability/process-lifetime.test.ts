import { describe, expect, it } from 'vitest';
import { runUntilStopped } from '../../bin/process-lifetime.js';

/**
 * A role says "ready" from inside its start; a supervisor (a test, systemd, the demo) may
 * send SIGTERM right after that line. Caught only once the start returned, such a signal
 * killed the process outright: no stop, its data dir lock left behind.
 */
describe('runUntilStopped', () => {
  it('a SIGTERM that comes while the role starts stops it cleanly once it is up', async () => {
    const stopped: string[] = [];
    const run = runUntilStopped('test-role', async () => {
      process.emit('SIGTERM'); // as if sent just after the ready line
      return { stop: async (reason) => void stopped.push(`stopped on a ${reason}`) };
    });
    await run;
    expect(stopped).toEqual(['stopped on a signal']);
    expect(process.listenerCount('SIGTERM')).toBe(0);
    expect(process.listenerCount('SIGINT')).toBe(0);
  });

  it('a start that fails lets the process go: no signal handler left, exit code 1', async () => {
    await runUntilStopped('test-role', () => Promise.reject(new Error('port taken')));
    expect(process.exitCode).toBe(1);
    process.exitCode = 0;
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });
});
