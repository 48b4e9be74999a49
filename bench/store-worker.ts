import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DurableStore, type DurableStoreOptions } from '../cloud/store/durable-store.js';
import { realClock } from '../shared/clock.js';
import { measureRound, prefill } from './store-load.js';

/*
 * One database size of the store benchmark, in its own process so that sizes do not share
 * a heap. Prefills, prints `ready`; then for each stdin line `round <seconds>` prints one
 * RoundResult as JSON. Removes its data when stdin closes.
 * Usage: node store-worker.js <objects> <writers> [store options JSON]
 */
async function main(): Promise<void> {
  const [objects = 1000, writers = 64] = process.argv.slice(2, 4).map(Number);
  const options = JSON.parse(process.argv[4] ?? '{}') as DurableStoreOptions;
  const dir = await mkdtemp(join(tmpdir(), 'kedge-bench-store-'));
  const store = await DurableStore.open(dir, options);
  try {
    await prefill(store, objects, writers);
    await measureRound(store, objects, writers, 1, realClock); // warm-up
    process.stdout.write('ready\n');
    for await (const line of createInterface({ input: process.stdin })) {
      const seconds = Number(line.split(' ')[1] ?? 3);
      process.stdout.write(JSON.stringify(await measureRound(store, objects, writers, seconds, realClock)) + '\n');
    }
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
