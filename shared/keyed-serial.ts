/**
 * Runs tasks one after another per key and concurrently across keys; a key is forgotten
 * once its last task settles, so the map never outgrows the work in flight.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<void>): Promise<void> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(task, task);
    const tail = next.catch(() => {});
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
