import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { passwordFileAccess, parsePasswordFile } from '../../cloud/broker-member/password-file.js';
import { mosquittoPasswordFile } from '../../cloud/hub/mosquitto-config.js';
import { hashPassword } from '../../cloud/hub/password-hash.js';
import { silentLogger } from '../../shared/log.js';

const line = (username: string, password: string) => ({ username, passwordHash: hashPassword(password) });

describe('the password file of a broker member', () => {
  let dir: string;
  let path: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-passwd-'));
    path = join(dir, 'passwd');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** Writes the file with a later modification time than the last one. */
  let generation = 0;
  const write = async (text: string): Promise<void> => {
    await writeFile(path, text);
    const at = new Date(Date.UTC(2030, 0, 1) + ++generation * 1000);
    await utimes(path, at, at);
  };

  it('admits the users it names, each with its own password', async () => {
    await write(mosquittoPasswordFile([line('kedge-cloud', 'hub'), line('edge-1', 'one')]));
    const { authenticate } = await passwordFileAccess(path, silentLogger);
    expect(await authenticate('kedge-cloud', 'hub', {})).toBe(true);
    expect(await authenticate('edge-1', 'one', {})).toBe(true);
    expect(await authenticate('edge-1', 'hub', {})).toBe(false);
    expect(await authenticate('edge-2', 'one', {})).toBe(false);
  });

  it('reads the file again when it changes, and names the nodes whose line went or changed', async () => {
    await write(mosquittoPasswordFile([line('kedge-cloud', 'hub'), line('edge-1', 'one'), line('edge-2', 'two'), line('edge-3', 'three')]));
    const access = await passwordFileAccess(path, silentLogger);
    const revoked: string[] = [];
    access.revoked$.subscribe((node) => revoked.push(node));
    const keep = (await readFile(path, 'utf8')).split('\n').find((l) => l.startsWith('edge-3:'))!; // edge-3 unchanged
    await write(`${mosquittoPasswordFile([line('kedge-cloud', 'hub2'), line('edge-2', 'new'), line('edge-4', 'four')])}${keep}\n`);
    expect(await access.authenticate('edge-4', 'four', {})).toBe(true);
    expect(await access.authenticate('edge-1', 'one', {})).toBe(false);
    expect(await access.authenticate('edge-3', 'three', {})).toBe(true);
    expect(revoked.sort()).toEqual(['edge-1', 'edge-2']);
  });

  it('skips blank lines and comments as Mosquitto does', () => {
    expect([...parsePasswordFile('# users\n\nedge-1:$7$x\n  \n').keys()]).toEqual(['edge-1']);
  });
});
