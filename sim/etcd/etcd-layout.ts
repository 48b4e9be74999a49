import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writePrivate } from '../../shared/private-file.js';

/**
 * A kept cluster's layout, `<dir>/cluster.json`: its members' ports and its token. A member's
 * peer URL is part of the cluster's membership, stored in every member's data: a cluster
 * started again from its data dirs needs the same ports.
 */
export interface EtcdLayout {
  token: string;
  members: { name: string; clientPort: number; peerPort: number }[];
}

export const layoutPath = (dir: string): string => join(dir, 'cluster.json');

/** The layout kept in `dir`, or undefined when there is none. */
export async function readLayout(dir: string): Promise<EtcdLayout | undefined> {
  let text: string;
  try {
    text = await readFile(layoutPath(dir), 'utf8');
  } catch {
    return undefined;
  }
  const layout = JSON.parse(text) as Partial<EtcdLayout>;
  if (typeof layout.token !== 'string' || !Array.isArray(layout.members)) throw new Error(`${layoutPath(dir)} is not an etcd cluster layout`);
  return layout as EtcdLayout;
}

export async function writeLayout(dir: string, layout: EtcdLayout): Promise<void> {
  await writePrivate(layoutPath(dir), JSON.stringify(layout, null, 2) + '\n');
}
