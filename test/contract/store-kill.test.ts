import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableStore } from '../../cloud/store/durable-store.js';

const root = join(import.meta.dirname, '..', '..');
const writerScript = join(root, 'test', 'support', 'durable-writer.mjs');
const compiledStore = join(root, 'dist', 'cloud', 'store', 'durable-store.js');

/** The child runs the compiled store: build it unless dist/ is newer than the sources. */
async function ensureBuilt(): Promise<void> {
  const sources = [...(await readdir(join(root, 'cloud', 'store'))).map((f) => join(root, 'cloud', 'store', f)), join(root, 'shared', 'errors.ts'), join(root, 'shared', 'log.ts'), join(root, 'shared', 'private-file.ts')];
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  if (existsSync(compiledStore) && statSync(compiledStore).mtimeMs >= newest) return;
  try {
    execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], { stdio: 'pipe' });
  } catch {
    // tsc still emits when unrelated files fail to type-check; the check below is what matters.
  }
  if (!existsSync(compiledStore) || statSync(compiledStore).mtimeMs < newest) throw new Error(`could not build ${compiledStore}`);
}

/** Runs the writer child until it has acknowledged `atLeast` writes, then kill -9s it. Returns the acknowledged keys. */
function writeUntilKilled(dir: string, run: number, atLeast: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writerScript, dir, String(run), '32'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked: string[] = [];
    let partial = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line.startsWith('/acked/')) acked.push(line);
      if (!killed && acked.length >= atLeast) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`writer exited early (code ${code}): ${stderr}`));
    });
  });
}

describe('DurableStore survives kill -9', () => {
  let dir: string;

  beforeAll(async () => {
    await ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'kedge-kill-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write, across repeated crashes', async () => {
    const acked: string[] = [];
    for (let run = 0; run < 3; run++) {
      acked.push(...(await writeUntilKilled(dir, run, 2000 + run * 1500)));
      const store = await DurableStore.open(dir);
      try {
        const keys = new Set((await store.list('/acked/')).items.map((kv) => kv.key));
        const lost = acked.filter((key) => !keys.has(key));
        expect(lost).toEqual([]);
        expect(store.revision).toBeGreaterThanOrEqual(acked.length);
      } finally {
        await store.close();
      }
    }
    expect(acked.length).toBeGreaterThan(6000);
  });
});
