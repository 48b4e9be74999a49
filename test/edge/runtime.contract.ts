import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContainerConfig, Runtime } from '../../edge/runtime/runtime.js';
import type { FakeClock } from '../../shared/clock.js';
import type { Check, RunUntilOptions } from '../support/settle.js';

/** What a pod needs to behave some way on one runtime: its annotations and container fields. */
export interface Workload {
  annotations?: Record<string, string>;
  container: Omit<ContainerConfig, 'name' | 'attempt'>;
}

export interface RuntimeHarness {
  runtime: Runtime;
  clock: FakeClock;
  /**
   * Resolves once `check` is truthy, moving `clock` on meanwhile: on fake time alone for
   * simulated containers, no faster than the wall clock for real processes.
   */
  until<T>(check: Check<T>, what: string, options?: RunUntilOptions): Promise<T>;
  /** Lets a moment pass in which a running container could die. */
  aMoment(): Promise<void>;
  /** A new runtime instance over the same data: a restarted edge process, or a rebooted node. */
  reopen(options?: { reboot?: boolean }): Promise<Runtime>;
  /** Runs until stopped; exits 0 on SIGTERM; writes at least two lines while it runs. */
  runs(): Workload;
  /** Runs, then exits by itself with `exitCode`. */
  exits(exitCode: number): Workload;
  cleanup(): Promise<void>;
}

/** A command every runtime can run in a running container (a simulated one runs nothing). */
const SUCCEEDS = [process.execPath, '-e', ''];

/** Waits for a promise that may need the clock to move (a timer or a poll behind it). */
async function whileAdvancing<T>(h: RuntimeHarness, promise: Promise<T>): Promise<T> {
  let done = false;
  const result = promise.finally(() => (done = true));
  await h.until(() => done, 'the operation to finish');
  return result;
}

/** The Runtime contract: every runtime must pass it. */
export function runtimeContract(name: string, open: () => Promise<RuntimeHarness>): void {
  describe(`Runtime contract: ${name}`, () => {
    let h: RuntimeHarness;
    beforeEach(async () => {
      h = await open();
    });
    afterEach(() => h.cleanup());

    async function startPod(runtime: Runtime, workload: Workload, podUid = 'u1') {
      const sandbox = await runtime.runSandbox({ podUid, name: `pod-${podUid}`, namespace: 'default', annotations: workload.annotations });
      const id = await runtime.createContainer(sandbox.id, { ...workload.container, name: 'app', attempt: 0 });
      await runtime.startContainer(id);
      return { sandbox, id };
    }
    const infoOf = async (runtime: Runtime, id: string) => (await runtime.listContainers()).find((c) => c.id === id);
    const untilState = (runtime: Runtime, id: string, state: string) =>
      h.until(async () => ((await infoOf(runtime, id))?.state === state ? infoOf(runtime, id) : undefined), `container ${state}`);
    /** Running, and past its first log line (a real process has set up its SIGTERM handler by then). */
    const untilUp = async (runtime: Runtime, id: string) => {
      await h.until(async () => (await runtime.logs(id)).length > 0, 'a first log line');
      return untilState(runtime, id, 'running');
    };

    it('runs a sandbox: listed with its pod, an IP and ready; stop makes it notready; remove forgets it', async () => {
      const sandbox = await h.runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'ns' });
      expect(sandbox).toMatchObject({ podUid: 'u1', name: 'p', namespace: 'ns', state: 'ready', createdAt: h.clock.now() });
      expect(sandbox.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(await h.runtime.listSandboxes()).toEqual([sandbox]);
      await h.runtime.stopSandbox(sandbox.id);
      expect((await h.runtime.listSandboxes())[0]?.state).toBe('notready');
      await h.runtime.removeSandbox(sandbox.id);
      expect(await h.runtime.listSandboxes()).toEqual([]);
    });

    it('a created container is listed as created, with its pod, name, attempt and no logs', async () => {
      const sandbox = await h.runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default' });
      const id = await h.runtime.createContainer(sandbox.id, { ...h.runs().container, name: 'app', attempt: 2 });
      expect(await h.runtime.listContainers()).toEqual([
        expect.objectContaining({ id, sandboxId: sandbox.id, podUid: 'u1', name: 'app', attempt: 2, state: 'created', createdAt: h.clock.now() }),
      ]);
      expect(await h.runtime.logs(id)).toEqual([]);
    });

    it('a started container runs; stop ends it with exit code 0; remove forgets it', async () => {
      const { id, sandbox } = await startPod(h.runtime, h.runs());
      const running = await untilUp(h.runtime, id);
      expect(running?.startedAt).toEqual(expect.any(Number));
      await whileAdvancing(h, h.runtime.stopContainer(id, 5000));
      expect(await infoOf(h.runtime, id)).toMatchObject({ state: 'exited', exitCode: 0, finishedAt: expect.any(Number) });
      await h.runtime.removeContainer(id);
      await h.runtime.removeSandbox(sandbox.id);
      expect(await h.runtime.listContainers()).toEqual([]);
    });

    it('a container that exits by itself is listed as exited with its exit code', async () => {
      const { id } = await startPod(h.runtime, h.exits(3));
      expect(await untilState(h.runtime, id, 'exited')).toMatchObject({ exitCode: 3, reason: 'Error' });
    });

    it('starting a container twice is a Conflict', async () => {
      const { id } = await startPod(h.runtime, h.runs());
      await expect(h.runtime.startContainer(id)).rejects.toMatchObject({ code: 'Conflict' });
    });

    it('exec in a running container runs the command: exit code 0', async () => {
      const { id } = await startPod(h.runtime, h.runs());
      await untilUp(h.runtime, id);
      expect(await h.runtime.exec(id, SUCCEEDS, 10_000)).toMatchObject({ exitCode: 0, timedOut: false });
    });

    it('exec in a container that is not running (created, or exited) is a Conflict', async () => {
      const sandbox = await h.runtime.runSandbox({ podUid: 'u1', name: 'p', namespace: 'default', annotations: h.runs().annotations });
      const created = await h.runtime.createContainer(sandbox.id, { ...h.runs().container, name: 'app', attempt: 0 });
      await expect(h.runtime.exec(created, SUCCEEDS, 10_000)).rejects.toMatchObject({ code: 'Conflict', message: `container not running (${created})` });
      const { id: exited } = await startPod(h.runtime, h.exits(0), 'u2');
      await untilState(h.runtime, exited, 'exited');
      await expect(h.runtime.exec(exited, SUCCEEDS, 10_000)).rejects.toMatchObject({ code: 'Conflict' });
    });

    it("an exec stream runs a shell command with the container's env: its output, then its exit code; NotFound once the container has exited", async () => {
      const runs = h.runs();
      const { id } = await startPod(h.runtime, { ...runs, container: { ...runs.container, env: { ...runs.container.env, GREETING: 'hi' } } });
      await untilUp(h.runtime, id);
      const session = await h.runtime.execStream!(id, ['sh', '-c', 'echo "$GREETING"; exit 3'], { stdin: false, stdout: true, stderr: false, tty: false });
      let out = '';
      session.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      expect(await whileAdvancing(h, session.exited)).toBe(3);
      expect(out).toBe('hi\n');
      await whileAdvancing(h, h.runtime.stopContainer(id, 10_000));
      await expect(h.runtime.execStream!(id, ['true'], { stdin: false, stdout: true, stderr: false, tty: false })).rejects.toMatchObject({ code: 'NotFound' });
    });

    it('logs come oldest first, with times', async () => {
      const { id } = await startPod(h.runtime, h.runs());
      const lines = await h.until(async () => {
        const got = await h.runtime.logs(id);
        return got.length >= 2 && got;
      }, 'two log lines', { stepMs: 20_000, budgetMs: 600_000 });
      for (const line of lines) expect(line).toEqual({ time: expect.any(Number), text: expect.any(String) });
      const times = lines.map((l) => l.time);
      expect(times).toEqual([...times].sort((a, b) => a - b));
    });

    it('unknown sandboxes and containers are NotFound; removing them is a no-op', async () => {
      await expect(h.runtime.stopSandbox('nope')).rejects.toMatchObject({ code: 'NotFound' });
      await expect(h.runtime.createContainer('nope', { name: 'app', attempt: 0 })).rejects.toMatchObject({ code: 'NotFound' });
      await expect(h.runtime.startContainer('nope')).rejects.toMatchObject({ code: 'NotFound' });
      await expect(h.runtime.stopContainer('nope', 0)).rejects.toMatchObject({ code: 'NotFound' });
      await expect(h.runtime.logs('nope')).rejects.toMatchObject({ code: 'NotFound' });
      await expect(h.runtime.exec('nope', SUCCEEDS, 1000)).rejects.toMatchObject({ code: 'NotFound' });
      await h.runtime.removeContainer('nope');
      await h.runtime.removeSandbox('nope');
    });

    it('a restarted edge adopts what still runs, keeping its start, and can stop it', async () => {
      const { id, sandbox } = await startPod(h.runtime, h.runs());
      const before = await untilUp(h.runtime, id);
      const again = await h.reopen();
      expect(await again.listSandboxes()).toEqual([sandbox]);
      expect(await infoOf(again, id)).toMatchObject({ state: 'running', startedAt: before?.startedAt });
      await h.aMoment();
      expect((await infoOf(again, id))?.state).toBe('running');
      await whileAdvancing(h, again.stopContainer(id, 5000));
      expect(await infoOf(again, id)).toMatchObject({ state: 'exited', exitCode: 0 });
    });

    it('a rebooted node forgets every sandbox and container', async () => {
      const { id } = await startPod(h.runtime, h.runs());
      await untilState(h.runtime, id, 'running');
      const rebooted = await h.reopen({ reboot: true });
      expect(await rebooted.listSandboxes()).toEqual([]);
      expect(await rebooted.listContainers()).toEqual([]);
    });
  });
}
