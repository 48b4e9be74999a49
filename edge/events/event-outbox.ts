import type { Logger } from '../../shared/log.js';
import type { EdgeEvent } from '../../shared/protocol/envelope.js';
import { jsonDocument } from '../../shared/recovering-read.js';
import { JsonStateFile, type SpacedWrites } from '../json-state-file.js';

/** client-go's recorder queue holds 1000 events; so does the edge's outbox. */
export const EVENT_OUTBOX_LIMIT = 1000;
export const EVENTS_FILE = 'events.json';

/** An event not yet acked, at the version the outbox gave its latest count. */
export interface PendingEvent {
  event: EdgeEvent;
  version: number;
}

/** The Events the cloud has not acked, by name, oldest first; bounded (the oldest dropped and counted when full). */
export interface EventOutbox {
  entries(): readonly PendingEvent[];
  /** A new event, or a repeat (same name) that replaces the pending one in its place. */
  put(event: EdgeEvent): void;
  /** The cloud has `version` of `name`: removed unless a newer count came since. */
  ack(name: string, version: number): boolean;
  /** Events dropped because the outbox was full. */
  readonly dropped: number;
  /** Resolves once what was put is on disk (at once in memory). */
  flush(): Promise<void>;
}

interface OutboxDocument {
  entries: PendingEvent[];
  dropped: number;
}

/** The outbox in memory only (hollow fleets; the base of the file-backed one). */
export class MemoryEventOutbox implements EventOutbox {
  protected readonly pending = new Map<string, PendingEvent>();
  private nextVersion = 1;
  dropped = 0;

  constructor(protected readonly limit = EVENT_OUTBOX_LIMIT) {}

  entries(): readonly PendingEvent[] {
    return [...this.pending.values()];
  }

  put(event: EdgeEvent): void {
    if (!this.pending.has(event.name) && this.pending.size >= this.limit) {
      this.pending.delete(this.pending.keys().next().value as string);
      this.dropped++;
    }
    const at = this.pending.get(event.name);
    // A repeat keeps its place: the outbox drains in the order events first happened.
    if (at) Object.assign(at, { event, version: this.nextVersion++ });
    else this.pending.set(event.name, { event, version: this.nextVersion++ });
    this.changed();
  }

  ack(name: string, version: number): boolean {
    const at = this.pending.get(name);
    if (!at || at.version > version) return false;
    this.pending.delete(name);
    this.changed();
    return true;
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  protected load(doc: OutboxDocument): void {
    for (const entry of doc.entries.slice(-this.limit)) this.pending.set(entry.event.name, entry);
    this.nextVersion = Math.max(0, ...doc.entries.map((e) => e.version)) + 1;
    this.dropped = doc.dropped;
  }

  protected changed(): void {}
}

/**
 * The outbox in `<dataDir>/events.json`, written whole and atomically after every change (as
 * the edge's other state files: JsonStateFile coalesces the writes), so the events an edge
 * recorded offline survive its restart.
 */
export class FileEventOutbox extends MemoryEventOutbox {
  private written: Promise<void> = Promise.resolve();

  private constructor(
    private readonly file: JsonStateFile<OutboxDocument>,
    private readonly logger: Logger,
    limit: number,
  ) {
    super(limit);
  }

  static async open(path: string, options: { logger: Logger; spaced?: SpacedWrites; limit?: number }): Promise<FileEventOutbox> {
    const parse = jsonDocument<OutboxDocument>({ entries: 'array', dropped: 'number' });
    const file = new JsonStateFile<OutboxDocument>(path, { parse, logger: options.logger, otherwise: 'no pending events', spaced: options.spaced });
    const outbox = new FileEventOutbox(file, options.logger, options.limit ?? EVENT_OUTBOX_LIMIT);
    const doc = await file.read();
    if (doc) outbox.load(doc);
    return outbox;
  }

  override flush(): Promise<void> {
    return this.written;
  }

  protected override changed(): void {
    this.written = this.file.write({ entries: this.entries() as PendingEvent[], dropped: this.dropped }).catch((err: Error) => {
      this.logger.warn('could not write the pending events; they are written again with the next change', { error: err.message });
    });
  }
}
