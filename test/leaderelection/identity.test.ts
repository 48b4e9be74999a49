import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOrCreateIdentity } from '../../cloud/leaderelection/index.js';

describe("a cloud's candidate identity", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
  const dataDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-identity-'));
    dirs.push(dir);
    return dir;
  };

  it('is <hostname>_<uuid>, the same after a restart on the same data dir, another on another', async () => {
    const one = await dataDir();
    const first = await loadOrCreateIdentity(one, 'cloud-1');
    expect(first).toMatch(/^cloud-1_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(await loadOrCreateIdentity(one, 'cloud-1')).toBe(first);
    expect((await readFile(join(one, 'leader-election-id'), 'utf8')).trim()).toBe(first.slice('cloud-1_'.length));
    expect(await loadOrCreateIdentity(await dataDir(), 'cloud-1')).not.toBe(first);
  });
});
