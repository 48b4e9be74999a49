import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cliName } from '../shared/cli-name.js';
import { writePrivate } from '../shared/private-file.js';
import { demoFilePath, type DemoFile } from '../shared/demo-file.js';

export { demoFilePath, readDemoFile, type DemoFile, type DemoNode } from '../shared/demo-file.js';

export const DEFAULT_DEMO_DATA_DIR = '.kedge/demo';
/** What a demo is called in its data dir's lock (lock-holders.ts), and to a second demo. */
export const DEMO_COMMAND = 'kedge demo';

/** Where a demo's edge keeps its cache, runtime state and local API token. */
export function edgeDataDir(dataDir: string, node: string): string {
  return join(dataDir, 'edges', node);
}

/** `bin/kedge <args>` (cliName) for the demo with `dataDir`, naming it unless it is the default one. */
export function kedgeCommandFor(dataDir: string, args: string): string {
  return `${cliName()} ${args}${dataDir === DEFAULT_DEMO_DATA_DIR ? '' : ` --data-dir ${dataDir}`}`;
}

export async function writeDemoFile(dataDir: string, demo: DemoFile): Promise<void> {
  // Private, as the credentials beside it: it holds the control API's token and may hold an unspent login token.
  await writePrivate(demoFilePath(dataDir), JSON.stringify(demo, null, 2) + '\n');
}

export async function removeDemoFile(dataDir: string): Promise<void> {
  await rm(demoFilePath(dataDir), { force: true });
}
