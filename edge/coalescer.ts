/**
 * Turns many requests for one task into few runs: a request while the task is idle runs it
 * now; requests while it runs share a single run that starts after it. Every caller resolves
 * only after a run that began after its request (so a write covers everything the caller
 * changed, and a sync sees everything the caller saw).
 */
export class Coalescer {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly task: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const queued = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    this.queued = queued;
    return queued;
  }

  private start(): Promise<void> {
    const run: Promise<void> = this.task().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }
}
