import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readEdgeToken } from '../cloud/apiserver/credentials.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import { startRole, type RoleProcess } from './role-process.js';

export interface DemoOptions {
  nodes: number;
  dataDir: string;
  apiPort: number;
  mqttPort: number;
  timeScale: number;
  /** Edge i's local API listens on localApiBasePort + i. */
  localApiBasePort: number;
  clock: Clock;
  logger: Logger;
  onLine?: (line: string) => void;
}

export interface Demo {
  readonly kubeconfigPath: string;
  readonly cloud: RoleProcess;
  readonly edges: Map<string, RoleProcess>;
  stop(): Promise<void>;
}

export function edgeDataDir(dataDir: string, node: string): string {
  return join(dataDir, 'edges', node);
}

/** Runs a cloud and `nodes` edges (edge-1 … edge-N) as separate processes. */
export async function startDemo(o: DemoOptions): Promise<Demo> {
  const dataDir = resolve(o.dataDir);
  await mkdir(dataDir, { recursive: true });
  const scale = ['--time-scale', String(o.timeScale)];
  const cloud = startRole({
    name: 'cloud',
    args: ['cloud', '--data-dir', dataDir, '--api-port', String(o.apiPort), '--mqtt-port', String(o.mqttPort), ...scale],
    readyPattern: /^kedge cloud ready /,
    clock: o.clock,
    onLine: o.onLine,
  });
  const edges = new Map<string, RoleProcess>();
  const stop = async (): Promise<void> => {
    await Promise.all([...edges.values()].map((e) => e.stop()));
    await cloud.stop();
  };
  try {
    const ready = await cloud.ready;
    const broker = /mqtt=(\S+)/.exec(ready)![1]!;
    const token = await readEdgeToken(dataDir);
    for (let i = 1; i <= o.nodes; i++) {
      const node = `edge-${i}`;
      const args = ['edge', '--node', node, '--broker', broker, '--token', token, '--data-dir', edgeDataDir(dataDir, node)];
      args.push('--local-api-port', String(o.localApiBasePort + i), ...scale);
      edges.set(node, startRole({ name: node, args, readyPattern: /^kedge edge \S+ ready /, clock: o.clock, onLine: o.onLine }));
    }
    await Promise.all([...edges.values()].map((e) => e.ready));
  } catch (err) {
    await stop();
    throw err;
  }
  return { kubeconfigPath: join(dataDir, 'kubeconfig'), cloud, edges, stop };
}
