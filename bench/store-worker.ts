import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DurableStore } from '../cloud/store/durable-store.js';
import { openEtcdStore } from '../cloud/store/etcd/open-etcd-store.js';
import { realClock } from '../shared/clock.js';
import { measureRound, prefill, type LoadedStore } from './store-load.js';
import type { WorkerStore } from './store-worker-client.js';

/*
 * One store of the store benchmarks, in its own process so that stores do not share a heap.
 * Prefills, prints `ready`; then for each stdin line `round <seconds>` prints one RoundResult
 * as JSON. Removes its data when stdin closes.
 * Usage: node store-worker.js <objects> <writers> [WorkerStore JSON; default durable]
 */
async function openStore(spec: WorkerStore): Promise<{ store: LoadedStore; remove(): Promise<void> }> {
  if (spec.kind === 'etcd') {
    const store = await openEtcdStore({ endpoints: spec.endpoints, prefix: spec.prefix });
    return { store, remove: async () => {} }; // the bench removes the members' data dirs
  }
  const dir = await mkdtemp(join(tmpdir(), 'kedge-bench-store-'));
  return { store: await DurableStore.open(dir, spec.options), remove: () => rm(dir, { recursive: true, force: true }) };
}

async function main(): Promise<void> {
  const [objects = 1000, writers = 64] = process.argv.slice(2, 4).map(Number);
  const { store, remove } = await openStore(JSON.parse(process.argv[4] ?? '{"kind":"durable"}') as WorkerStore);
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
    await remove();
  }
}

await main();
