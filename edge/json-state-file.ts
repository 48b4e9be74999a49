import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * One JSON document in one file, written atomically (write a temp file, then rename it over
 * the old one) so a crash leaves either the old or the new document, never half of one.
 * Writes are serialised and coalesced: a write requested while another is in flight waits
 * for it, and only the newest value requested meanwhile is written.
 */
export class JsonStateFile<T> {
  private chain: Promise<void> = Promise.resolve();
  private latest: { value: T } | undefined;

  constructor(readonly path: string) {}

  async read(): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(this.path, 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Resolves once `value` (or a newer value) is on disk. */
  write(value: T): Promise<void> {
    this.latest = { value };
    // A failed write must not poison the ones after it.
    const next = this.chain.catch(() => undefined).then(() => this.writeLatest());
    this.chain = next;
    return next;
  }

  async remove(): Promise<void> {
    await this.chain.catch(() => undefined);
    await rm(this.path, { force: true });
  }

  private async writeLatest(): Promise<void> {
    const pending = this.latest;
    if (!pending) return;
    this.latest = undefined;
    const tmp = `${this.path}.tmp`;
    await mkdir(dirname(this.path), { recursive: true });
    await writeFile(tmp, JSON.stringify(pending.value));
    await rename(tmp, this.path);
  }
}
