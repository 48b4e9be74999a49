import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SIM_LOG_PERIOD_MS } from '../../edge/runtime/sim-logs.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { SimFs } from '../../edge/runtime/sim-shell/sim-fs.js';
import { FakeClock } from '../../shared/clock.js';
import { testNetwork } from '../support/test-network.js';
import { PIPES, textOf, TTY, WITH_STDIN } from './stream-support.js';

describe('the sim runtime’s attach and port-forward', () => {
  let dir: string;
  let clock: FakeClock;
  let runtime: SimRuntime;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-simstreams-'));
    clock = new FakeClock();
    runtime = await SimRuntime.open({ network: testNetwork(), dataDir: dir, clock, defaultStartMs: 0 });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function start(annotations: Record<string, string> = {}, stdin = false) {
    const sandbox = await runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default', annotations });
    const shell = stdin ? { command: ['sh'], stdin, tty: true } : {};
    const id = await runtime.createContainer(sandbox.id, { name: 'app', attempt: 0, image: stdin ? 'busybox:1.36' : 'nginx', ...shell });
    await runtime.startContainer(id);
    return { sandbox, id };
  }

  it('attach gives the simulated log lines as they come, and ends with the container', async () => {
    const { id } = await start({ 'kedge.io/crash-after': '150s', 'kedge.io/exit-code': '3' });
    const session = await runtime.attach(id, PIPES);
    const out = textOf(session.stdout);
    await clock.advance(SIM_LOG_PERIOD_MS);
    expect(out.text()).toBe('[kedge sim] app: running for 1m\n');
    await clock.advance(2 * SIM_LOG_PERIOD_MS);
    expect(await session.exited).toBe(3);
    expect(out.text()).toBe('[kedge sim] app: running for 1m\n[kedge sim] app: running for 2m\n[kedge sim] app: exited with code 3 (Error)\n');
  });

  it('attach -it to a container created with stdin is the simulated shell (kubectl run -it)', async () => {
    const { id } = await start({}, true);
    const session = await runtime.attach(id, TTY);
    const out = textOf(session.stdout);
    session.stdin!.write('hostname\rexit\r');
    expect(await session.exited).toBe(0);
    expect(out.text()).toBe('# hostname\r\np\r\n# exit\r\n');
  });

  it('attach refuses stdin of a container created without, and detaches on kill', async () => {
    const { id } = await start();
    await expect(runtime.attach(id, WITH_STDIN)).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('set stdin: true') });
    const session = await runtime.attach(id, PIPES);
    session.kill();
    expect(await session.exited).toBe(0);
  });

  it('exec and attach say NotFound for a container that does not run', async () => {
    const { id } = await start();
    await runtime.stopContainer(id, 0);
    await expect(runtime.execStream(id, ['ls'], PIPES)).rejects.toMatchObject({ code: 'NotFound', message: 'container not found ("app")' });
    await expect(runtime.attach(id, PIPES)).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('refuses port-forward: simulated pods listen on no port', async () => {
    const { sandbox } = await start();
    await expect(runtime.portForward(sandbox.id, 80)).rejects.toThrow(`error forwarding port 80 to pod ${sandbox.id}, uid : the sim runtime's pods are simulated and listen on no port`);
  });

  it('bounds the scratch space of a container', async () => {
    const fs = new SimFs(join(dir, 'scratch'), [], [], 10);
    await fs.write('/a', Buffer.alloc(8));
    await expect(fs.write('/b', Buffer.alloc(8))).rejects.toThrow('No space left on device');
  });
});
