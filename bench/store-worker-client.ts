import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { DurableStoreOptions } from '../cloud/store/durable-store.js';
import type { RoundResult } from './store-load.js';

/** Which store a worker loads: the embedded durable one in a temp dir, or etcd under its own key prefix. */
export type WorkerStore = { kind: 'durable'; options?: DurableStoreOptions } | { kind: 'etcd'; endpoints: string[]; prefix: string };

/** A store bench worker process (bench/store-worker.ts), driven round by round through stdin. */
export class StoreWorker {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly lines: AsyncIterator<string>;

  constructor(objects: number, writers: number, store: WorkerStore) {
    const script = fileURLToPath(new URL('./store-worker.js', import.meta.url));
    this.child = spawn(process.execPath, [script, String(objects), String(writers), JSON.stringify(store)], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  async nextLine(): Promise<string> {
    const { value, done } = await this.lines.next();
    if (done) throw new Error('store bench worker exited');
    return value;
  }

  async round(seconds: number): Promise<RoundResult> {
    this.child.stdin.write(`round ${seconds}\n`);
    return JSON.parse(await this.nextLine()) as RoundResult;
  }

  async stop(): Promise<void> {
    const closed = once(this.child, 'close');
    this.child.stdin.end();
    await closed;
  }
}
