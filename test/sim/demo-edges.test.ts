import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DemoEdges, EDGE_READY_TIMEOUT_MS } from '../../sim/demo-edges.js';
import type { RoleProcess } from '../../sim/role-process.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';

/** A stand-in edge process: ready when the test says, gone when stopped or killed (stop waits for `releaseStop`). */
class FakeEdge implements RoleProcess {
  readonly child: ChildProcess;
  /** What the child says of itself: its pid, and the signal that ended it. */
  private readonly proc: { pid: number; signalCode: string | null };
  readonly ready: Promise<string>;
  readonly exited: Promise<number | null>;
  markReady = (): void => {};
  killed = false;
  /** The grace stopAsParent was given, once it was called. */
  stoppedAsParent: number | undefined;
  private exit = (_code: number | null): void => {};
  private stopGate: Promise<void> = Promise.resolve();
  releaseStop = (): void => {};

  constructor(
    readonly name: string,
    pid: number,
  ) {
    this.proc = { pid, signalCode: null };
    this.child = this.proc as unknown as ChildProcess;
    this.ready = new Promise((resolve) => (this.markReady = () => resolve(`kedge edge ${name} ready local-api=http://127.0.0.1:1`)));
    this.exited = new Promise((resolve) => (this.exit = resolve));
  }

  holdStop(): void {
    this.stopGate = new Promise((resolve) => (this.releaseStop = resolve));
  }

  async stop(): Promise<void> {
    await this.stopGate;
    this.exit(0);
  }

  async kill(): Promise<void> {
    this.killed = true;
    this.die();
  }

  async stopAsParent(graceMs: number): Promise<void> {
    this.stoppedAsParent = graceMs;
    this.exit(0);
  }

  /** Exits by itself, as after a kill -9 from outside. */
  die(): void {
    this.proc.signalCode = 'SIGKILL';
    this.exit(null);
  }
}

function demoEdges(clock: FakeClock): { edges: DemoEdges; started: FakeEdge[]; lines: string[]; args: string[][] } {
  const started: FakeEdge[] = [];
  const args: string[][] = [];
  const logger = memoryLogger('demo');
  const edges = new DemoEdges({
    clock,
    logger,
    restartCommand: (node) => `bin/kedge demo restart ${node} --data-dir /tmp/d`,
    stopGraceMs: 15_000,
    startProcess: (o) => {
      const edge = new FakeEdge(o.name, 4000 + started.length);
      started.push(edge);
      args.push(o.args);
      return edge;
    },
  });
  return { edges, started, lines: logger.lines, args };
}

/** A log line without its time stamp. */
const untimed = (line: string): string => line.replace(/^\S+ /, '');

describe("a demo's edge processes", () => {
  it('kills a restarted edge that is not ready in time, and says so; the node can be restarted again', async () => {
    const clock = new FakeClock();
    const { edges, started } = demoEdges(clock);
    edges.start('edge-1', ['edge']);
    started[0]!.markReady();
    const restart = edges.restartProcess('edge-1');
    const outcome = restart.then(() => 'ready', (err: Error) => err.message);
    await clock.advance(EDGE_READY_TIMEOUT_MS);
    expect(await outcome).toBe('edge-1 was not ready within 20 s of its restart, so it was killed');
    expect(started).toHaveLength(2);
    expect(started[1]!.killed).toBe(true);

    const again = edges.restartProcess('edge-1');
    await clock.advance(0);
    started[2]!.markReady();
    expect((await again).name).toBe('edge-1');
    expect(edges.info('edge-1')?.process).toBe('running');
  });

  it('starts nothing once stopAll has begun, even for a restart already under way', async () => {
    const clock = new FakeClock();
    const { edges, started } = demoEdges(clock);
    edges.start('edge-1', ['edge']);
    started[0]!.markReady();
    started[0]!.holdStop();
    const restart = edges.restartProcess('edge-1').then(() => 'restarted', (err: Error) => err.message);
    const stopped = edges.stopAll();
    started[0]!.releaseStop();
    await stopped;
    expect(await restart).toBe('the demo is stopping: edge-1 is not started again');
    expect(started).toHaveLength(1);
  });

  it('says when an edge process exits by itself, and how to start it again; the restart says it started again', async () => {
    const clock = new FakeClock();
    const { edges, started, lines } = demoEdges(clock);
    edges.start('edge-1', ['edge']);
    started[0]!.markReady();
    started[0]!.die();
    await clock.advance(0);
    expect(lines.map(untimed)).toEqual(["WARN  [demo] edge-1's edge process (pid 4000) exited (killed by SIGKILL); start it again with: bin/kedge demo restart edge-1 --data-dir /tmp/d"]);
    expect(edges.info('edge-1')).toMatchObject({ process: 'exited', exitCode: null });

    const restart = edges.restartProcess('edge-1');
    await clock.advance(0);
    started[1]!.markReady();
    await restart;
    expect(lines.slice(1).map(untimed)).toEqual(["INFO  [demo] edge-1's edge process started again (pid 4001)"]);
  });

  it('a crash or a reboot it was asked for: the exit and the new start, with no hint', async () => {
    const clock = new FakeClock();
    const { edges, started, lines, args } = demoEdges(clock);
    edges.start('edge-1', ['edge']);
    started[0]!.markReady();
    const crash = edges.restart('edge-1', 'crash')!;
    await clock.advance(0);
    started[1]!.markReady();
    expect(await crash).toMatchObject({ name: 'edge-1', process: 'running' });
    const reboot = edges.restart('edge-1', 'reboot')!;
    await clock.advance(0);
    started[2]!.markReady();
    await reboot;
    expect(lines.map(untimed)).toEqual([
      "INFO  [demo] edge-1's edge process (pid 4000) exited (killed by SIGKILL)",
      "INFO  [demo] edge-1's edge process started again (pid 4001)",
      "INFO  [demo] edge-1's edge process (pid 4001) exited (exit code 0)",
      "INFO  [demo] edge-1's edge process started again (pid 4002, as after a node reboot)",
    ]);
    expect(args.map((a) => a.slice(1))).toEqual([[], [], ['--reboot']]);
  });

  it("stopAll ends every edge as the demo's own end would (its stdin), with the grace it was given", async () => {
    const clock = new FakeClock();
    const { edges, started, lines } = demoEdges(clock);
    edges.start('edge-1', ['edge']);
    edges.start('edge-2', ['edge']);
    await edges.stopAll();
    expect(started.map((e) => e.stoppedAsParent)).toEqual([15_000, 15_000]);
    expect(lines.map(untimed)).toEqual(["INFO  [demo] edge-1's edge process (pid 4000) exited (exit code 0)", "INFO  [demo] edge-2's edge process (pid 4001) exited (exit code 0)"]);
  });
});
