import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENTS_FILE, FileEventOutbox, MemoryEventOutbox } from '../../../edge/events/event-outbox.js';
import { silentLogger } from '../../../shared/log.js';
import { edgeEvent } from './event-fixtures.js';

describe('the event outbox', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-events-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const open = (limit?: number) => FileEventOutbox.open(join(dir, EVENTS_FILE), { logger: silentLogger, ...(limit ? { limit } : {}) });

  it('keeps what is not acked across a restart, in order, with the counts of repeats', async () => {
    const outbox = await open();
    outbox.put(edgeEvent('a'));
    outbox.put(edgeEvent('b'));
    outbox.put(edgeEvent('c'));
    outbox.put(edgeEvent('a', 2));
    const b = outbox.entries()[1]!;
    expect(outbox.ack('b', b.version)).toBe(true);
    await outbox.flush();

    const reopened = await open();
    expect(reopened.entries().map((e) => [e.event.name, e.event.count])).toEqual([['a', 2], ['c', 1]]);
    reopened.put(edgeEvent('d'));
    expect(reopened.entries().at(-1)!.version).toBeGreaterThan(Math.max(...outbox.entries().map((e) => e.version)));
    await reopened.flush();
  });

  it('an ack of an older count leaves the newer one pending', async () => {
    const outbox = new MemoryEventOutbox();
    outbox.put(edgeEvent('a'));
    const sent = outbox.entries()[0]!.version;
    outbox.put(edgeEvent('a', 2));
    expect(outbox.ack('a', sent)).toBe(false);
    expect(outbox.entries()[0]!.event.count).toBe(2);
  });

  it('is bounded: when full the oldest is dropped and counted, on disk too', async () => {
    const outbox = await open(3);
    for (const name of ['a', 'b', 'c', 'd', 'e']) outbox.put(edgeEvent(name));
    outbox.put(edgeEvent('e', 2)); // a repeat takes no room
    expect(outbox.entries().map((e) => e.event.name)).toEqual(['c', 'd', 'e']);
    expect(outbox.dropped).toBe(2);
    await outbox.flush();
    expect(JSON.parse(await readFile(join(dir, EVENTS_FILE), 'utf8'))).toMatchObject({ dropped: 2 });
    expect((await open(3)).dropped).toBe(2);
  });
});
