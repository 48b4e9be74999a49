import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The edge worker process, one JSON line per command. */
export class EdgeWorker {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly lines: AsyncIterator<string>;

  constructor(options: { brokerUrl: string; token: string; nodeName: string; maxPods: number }) {
    const script = fileURLToPath(new URL('./edge-worker.js', import.meta.url));
    this.child = spawn(process.execPath, ['--expose-gc', script, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  async ask<T>(command?: string): Promise<T> {
    if (command) this.child.stdin.write(command + '\n');
    const { value, done } = await this.lines.next();
    if (done) throw new Error('edge bench worker exited');
    return JSON.parse(value) as T;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const closed = once(this.child, 'close');
    this.child.stdin.end();
    await closed;
  }
}
