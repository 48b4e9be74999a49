import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { settle } from '../shared/clock.js';
import { Coalescer } from './coalescer.js';

/**
 * One JSON document in one file, written atomically (write a temp file, then rename it over
 * the old one) so a crash leaves either the old or the new document, never half of one.
 * Writes are serialised and coalesced: every write requested in one turn of the event loop,
 * or while another write is in flight, shares a single write of the newest value. The value
 * is serialised when its write begins, so callers may keep mutating the object they passed
 * (no copy needed); what is written is then at least as new as what each caller asked for.
 */
export class JsonStateFile<T> {
  private readonly writes = new Coalescer(() => this.writeLatest());
  private latest: { value: T } | undefined;
  private dirMade = false;

  constructor(readonly path: string) {}

  async read(): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(this.path, 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /** Resolves once `value` (as it is when the write begins, or a newer value) is on disk. */
  write(value: T): Promise<void> {
    this.latest = { value };
    return this.writes.run();
  }

  async remove(): Promise<void> {
    this.latest = undefined;
    await this.writes.run().catch(() => undefined); // waits out a write in flight
    await rm(this.path, { force: true });
  }

  private async writeLatest(): Promise<void> {
    await settle(); // the end of this turn: every write requested in it shares this one
    const pending = this.latest;
    if (!pending) return;
    this.latest = undefined;
    const text = JSON.stringify(pending.value);
    const tmp = `${this.path}.tmp`;
    if (!this.dirMade) await mkdir(dirname(this.path), { recursive: true });
    this.dirMade = true;
    await writeFile(tmp, text);
    await rename(tmp, this.path);
  }
}
