import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writePrivate } from '../shared/private-file.js';

/** `<data-dir>/demo.json`: how other commands find a running demo. Removed when it stops. */
export interface DemoFile {
  pid: number;
  /** The demo's control API (links), on 127.0.0.1. */
  controlUrl: string;
  /** Its bearer token: anyone on the machine reaches 127.0.0.1, only the data dir's owner reads this file. */
  controlToken?: string;
  apiUrl: string;
  /** The cloud's own broker; edges reach it through their link proxies. */
  brokerUrl: string;
  /** The dashboard with a one-time login token (spent by the first browser that opens it). */
  dashboardUrl?: string;
  nodes: DemoNode[];
}

export interface DemoNode {
  name: string;
  localApiUrl: string;
  /** The broker address this edge was given: its link proxy. */
  proxyUrl: string;
}

export const DEFAULT_DEMO_DATA_DIR = '.kedge/demo';

export function demoFilePath(dataDir: string): string {
  return join(resolve(dataDir), 'demo.json');
}

export async function writeDemoFile(dataDir: string, demo: DemoFile): Promise<void> {
  // Private, as the credentials beside it: it holds the control API's token and may hold an unspent login token.
  await writePrivate(demoFilePath(dataDir), JSON.stringify(demo, null, 2) + '\n');
}

/** The demo file, or undefined when there is none (or it is not a demo file). */
export async function readDemoFile(dataDir: string): Promise<DemoFile | undefined> {
  let text: string;
  try {
    text = await readFile(demoFilePath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<DemoFile>;
    return typeof parsed.controlUrl === 'string' && Array.isArray(parsed.nodes) ? (parsed as DemoFile) : undefined;
  } catch {
    return undefined;
  }
}

export async function removeDemoFile(dataDir: string): Promise<void> {
  await rm(demoFilePath(dataDir), { force: true });
}
