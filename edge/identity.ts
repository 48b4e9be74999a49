import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import os from 'node:os';
import type { Logger } from '../shared/log.js';
import { jsonDocument } from '../shared/recovering-read.js';
import { JsonStateFile } from './json-state-file.js';

export interface EdgeIdentity {
  /** Stays with the data directory for good. */
  machineId: string;
  /** Stays until the node reboots (`reboot: true`), like /proc/sys/kernel/random/boot_id. */
  bootId: string;
  /** The boot id is not the one the data directory held: the node rebooted since the edge last ran. */
  rebooted: boolean;
  osImage: string;
  kernelVersion: string;
}

export const IDENTITY_FILE = 'identity.json';

/** Reads (or creates) the node's machine and boot ids in the data directory. */
export async function loadIdentity(dataDir: string, reboot: boolean, logger: Logger): Promise<EdgeIdentity> {
  const file = new JsonStateFile<{ machineId: string; bootId: string }>(join(dataDir, IDENTITY_FILE), {
    parse: jsonDocument({ machineId: 'string', bootId: 'string' }),
    logger,
    otherwise: 'a new machine id and boot id',
  });
  const saved = await file.read();
  const ids = {
    machineId: saved?.machineId ?? randomUUID().replaceAll('-', ''),
    bootId: !reboot && saved?.bootId ? saved.bootId : randomUUID(),
  };
  if (ids.machineId !== saved?.machineId || ids.bootId !== saved?.bootId) await file.write(ids);
  const rebooted = saved?.bootId !== undefined && saved.bootId !== ids.bootId;
  return { ...ids, rebooted, osImage: await osImage(), kernelVersion: os.release() };
}

async function osImage(): Promise<string> {
  try {
    const text = await readFile('/etc/os-release', 'utf8');
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text)?.[1];
    if (pretty) return pretty;
  } catch {
    // not Linux, or no os-release: fall through
  }
  return `${os.type()} ${os.release()}`;
}
