import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JsonStateFile, SpacedWrites } from '../../edge/json-state-file.js';
import { settle, wallDelay } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';

describe('JsonStateFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-state-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));
  const options = { parse: (text: string) => JSON.parse(text) as never, logger: silentLogger, otherwise: 'nothing' };

  /** A document that counts how often it is serialised, i.e. written. */
  const counted = () => {
    const doc = { n: 0, writes: 0, toJSON: () => ({ n: doc.n }) };
    const toJSON = doc.toJSON;
    doc.toJSON = () => (doc.writes++, toJSON());
    return doc;
  };

  it('shares one write among the writes asked for in one turn, and holds the newest value', async () => {
    const file = new JsonStateFile<ReturnType<typeof counted>>(join(dir, 'sub', 'state.json'), options);
    const doc = counted();
    const done = [1, 2, 3].map((n) => ((doc.n = n), file.write(doc)));
    await Promise.all(done);
    expect(doc.writes).toBe(1);
    expect(await file.read()).toEqual({ n: 3 });
  });

  it('does not make callers of a file written not durably wait on the disk, and still writes the newest value', async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (line: string) => void warnings.push(line) };
    const file = new JsonStateFile<ReturnType<typeof counted>>(join(dir, 'state.json'), { ...options, logger, spaced: new SpacedWrites() });
    const doc = counted();
    doc.n = 1;
    await file.write(doc);
    expect(doc.writes).toBe(0); // resolved before its write began
    doc.n = 2;
    await file.write(doc);
    await vi.waitFor(async () => expect(await file.read()).toEqual({ n: 2 }), { timeout: 10_000 });
    await rm(dir, { recursive: true, force: true });
    await file.write(doc); // the directory is gone: the write fails, and says so
    await vi.waitFor(() => expect(warnings.join('\n')).toMatch(/cannot write .*state\.json/), { timeout: 10_000 });
  });

  it('spaces the writes of a file written not durably: what is asked for meanwhile shares one write of the newest value', async () => {
    const file = new JsonStateFile<ReturnType<typeof counted>>(join(dir, 'state.json'), { ...options, spaced: new SpacedWrites(), writeGapMs: 2_000 });
    const doc = counted();
    for (let n = 1; n <= 5; n++) {
      doc.n = n;
      await file.write(doc);
      await wallDelay(50); // time enough for a write of its own each, were they not spaced
    }
    await vi.waitFor(async () => expect(await file.read()).toEqual({ n: 5 }), { timeout: 10_000 });
    expect(doc.writes).toBe(2); // the first at once, the four after it together once its gap has passed
  });

  it('gives a write asked for while another is in flight a write of its own, after it', async () => {
    const file = new JsonStateFile<ReturnType<typeof counted>>(join(dir, 'state.json'), options);
    const doc = counted();
    doc.n = 1;
    const first = file.write(doc);
    await settle(); // the first write has begun
    expect(doc.writes).toBe(1);
    doc.n = 2;
    const second = file.write(doc);
    await first;
    await second;
    expect(doc.writes).toBe(2);
    expect(await file.read()).toEqual({ n: 2 });
  });

  it('remove waits for a write in flight, then deletes the file', async () => {
    const file = new JsonStateFile<{ n: number }>(join(dir, 'state.json'), options);
    void file.write({ n: 1 });
    await file.remove();
    expect(await file.read()).toBeUndefined();
  });

  it('settles: every value asked for lands at once, the spacing cut short, and nothing is written after', async () => {
    const spaced = new SpacedWrites();
    const files = ['a.json', 'b.json'].map((name) => new JsonStateFile<{ n: number }>(join(dir, name), { ...options, spaced, writeGapMs: 60_000 }));
    for (const file of files) {
      await file.write({ n: 1 }); // written at once, then a minute's gap
      await file.write({ n: 2 }); // held back by the gap
    }
    await spaced.settle(); // without the gap cut short, a minute: past the test's timeout
    for (const file of files) expect(await file.read()).toEqual({ n: 2 });
  });
});
