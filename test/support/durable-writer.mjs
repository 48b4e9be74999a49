// Child process for store-kill.test.ts: writes to a DurableStore as fast as it can, from
// many concurrent writers, and prints `<key>\n` for every write once it is acknowledged.
// The parent kills it with SIGKILL mid-stream. Runs the compiled store from dist/.
import process from 'node:process';
import { DurableStore } from '../../dist/cloud/store/durable-store.js';

const [dir, run = '0', writers = '32'] = process.argv.slice(2);
const store = await DurableStore.open(dir, { snapshotMinBytes: 64 * 1024, snapshotRatio: 1 });
const pad = 'x'.repeat(300);

async function writer(id) {
  for (let i = 0; ; i++) {
    const key = `/acked/r${run}/w${id}/${i}`;
    await store.create(key, { id, i, pad });
    process.stdout.write(`${key}\n`);
  }
}

process.stdout.write('ready\n');
await Promise.all(Array.from({ length: Number(writers) }, (_, id) => writer(id)));
