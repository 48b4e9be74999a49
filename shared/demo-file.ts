import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * `<data-dir>/demo.json`: how other commands, and the cloud a demo started, find the running
 * demo. The demo writes it (sim/demo-file.ts) and removes it when it stops; here only what
 * its readers share, since cloud/ may not import sim/.
 */
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
  /** With `kedge demo --etcd N`: its etcd members, in order (the cloud's --etcd-endpoints). */
  etcd?: DemoEtcdMember[];
}

export interface DemoEtcdMember {
  name: string;
  clientUrl: string;
}

export interface DemoNode {
  name: string;
  localApiUrl: string;
  /** The broker address this edge was given: its link proxy. */
  proxyUrl: string;
}

export function demoFilePath(dataDir: string): string {
  return join(resolve(dataDir), 'demo.json');
}

/** The demo file, or undefined when there is none (or it is not a demo file). */
export async function readDemoFile(dataDir: string): Promise<DemoFile | undefined> {
  try {
    const parsed = JSON.parse(await readFile(demoFilePath(dataDir), 'utf8')) as Partial<DemoFile> | null;
    return typeof parsed?.controlUrl === 'string' && Array.isArray(parsed.nodes) ? (parsed as DemoFile) : undefined;
  } catch {
    return undefined;
  }
}
