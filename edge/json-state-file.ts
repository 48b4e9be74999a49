import { dirname } from 'node:path';
import { realClock, settle } from '../shared/clock.js';
import { makePrivateDir, removePrivate, writePrivate } from '../shared/private-file.js';
import { readRecovering, type RecoverOptions, type Recovered } from '../shared/recovering-read.js';
import { Coalescer } from './coalescer.js';

/** A file written not durably is written at most once per this many ms: a hollow fleet's 1,000 edges would otherwise spend its CPU on the disk. */
export const NOT_DURABLE_WRITE_GAP_MS = 500;

/**
 * The state files of one edge written not durably (hollow fleets). Their writes are spaced, so
 * the last one asked for may land well after its caller moved on; `settle` cuts the spacing
 * short and resolves once every value asked for has landed. An edge's stop settles its files
 * before they are let go: nothing is written into its data directory after it stopped.
 */
export class SpacedWrites {
  private readonly files = new Set<{ settle(): Promise<void> }>();

  add(file: { settle(): Promise<void> }): void {
    this.files.add(file);
  }

  async settle(): Promise<void> {
    await Promise.all([...this.files].map((f) => f.settle()));
  }
}

/** How a state file is written: durably (the default), or not durably and spaced, settled with its edge's others. */
export interface StateWrites {
  spaced?: SpacedWrites;
}

/**
 * One JSON document in one file, written durably (shared/private-file.ts: a crash leaves the
 * old or the new document, never half of one) with its previous version kept, and read
 * defensively (a damaged file falls back to that version, with a WARN; shared/recovering-read.ts).
 * Writes are serialised and coalesced: every write requested in one turn of the event loop,
 * or while another write is in flight, shares a single write of the newest value. The value
 * is serialised when its write begins, so callers may keep mutating the object they passed
 * (no copy needed); what is written is then at least as new as what each caller asked for.
 */
export class JsonStateFile<T> {
  private readonly writes = new Coalescer(() => this.writeLatest());
  private latest: { value: T } | undefined;
  private dirMade = false;
  /** The file was damaged when read: the next write replaces it without keeping it as the last good copy. */
  private damaged = false;
  /** The gap after a spaced write, while it runs. */
  private gap: AbortController | undefined;
  /** A settle is under way: no gaps. */
  private hurry = false;

  constructor(
    readonly path: string,
    private readonly options: RecoverOptions<T> & StateWrites & { writeGapMs?: number },
  ) {
    options.spaced?.add(this);
  }

  /** The document; undefined when there is none (a first start) or none that is good (said in a WARN). */
  async read(): Promise<T | undefined> {
    return (await this.readRecovered()).value;
  }

  /**
   * The same, and what was wrong with the file when it was not used as it was. The file then
   * holds the last good copy again at once; or `mend` of it (of nothing, when there was none),
   * which the caller gets too: what must outlive a crash right after this read goes in there.
   */
  async readRecovered(mend?: (value: T | undefined) => T): Promise<Recovered<T>> {
    const read = await readRecovering(this.path, this.options);
    this.damaged = read.problem !== undefined;
    if (!this.damaged) return read;
    const value = mend ? mend(read.value) : read.value;
    if (value !== undefined) await this.write(value).catch(() => undefined); // else the next write mends it
    return { ...read, value };
  }

  /**
   * Resolves once `value` (as it is when the write begins, or a newer value) is on disk. A file
   * written not durably (hollow fleets) resolves at once: a crash may lose its newest value
   * anyway, so nobody waits on the disk for it, and its writes are spaced (NOT_DURABLE_WRITE_GAP_MS:
   * what is asked for meanwhile shares the next one); a write that fails is logged, the next
   * one writes the newest value again.
   */
  write(value: T): Promise<void> {
    this.latest = { value };
    const written = this.writes.run();
    if (!this.options.spaced) return written;
    written.catch((err: unknown) => this.options.logger.warn(`cannot write ${this.path}: ${(err as Error).message}`));
    return Promise.resolve();
  }

  async remove(): Promise<void> {
    this.latest = undefined;
    await this.writes.run().catch(() => undefined); // waits out a write in flight
    await removePrivate(this.path);
  }

  private async writeLatest(): Promise<void> {
    await settle(); // the end of this turn: every write requested in it shares this one
    const pending = this.latest;
    if (!pending) return;
    this.latest = undefined;
    const text = JSON.stringify(pending.value);
    if (!this.dirMade) await makePrivateDir(dirname(this.path));
    this.dirMade = true;
    await writePrivate(this.path, text, { keepPrevious: !this.damaged, durable: !this.options.spaced });
    this.damaged = false;
    if (this.options.spaced && !this.hurry) await this.spaceOut();
  }

  /** Resolves once every value asked for is on disk, the spacing of a file written not durably cut short. */
  async settle(): Promise<void> {
    this.hurry = true;
    this.gap?.abort();
    try {
      await this.writes.run().catch(() => undefined);
    } finally {
      this.hurry = false;
    }
  }

  /** Holds the next write back until the gap has passed (or a settle cuts it short). */
  private async spaceOut(): Promise<void> {
    const gap = (this.gap = new AbortController());
    await realClock.sleep(this.options.writeGapMs ?? NOT_DURABLE_WRITE_GAP_MS, gap.signal).catch(() => undefined);
    if (this.gap === gap) this.gap = undefined;
  }
}
