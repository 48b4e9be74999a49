import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { ObjectList, Pod } from '../shared/types.js';
import type { ConnectionReport } from '../shared/wire/dashboard.js';
import { busy, type EdgeControl, type EdgeProcessInfo, type EdgeProcessState, type EdgeRestart, type EdgeView } from './edge-routes.js';
import { readyField, startRole, type RoleOptions, type RoleProcess } from './role-process.js';

/** How long an edge's local API may take to answer for the edge's own view. */
const LOCAL_API_TIMEOUT_MS = 2_000;
/** How long a restarted edge may take to say it is ready (within the dashboard's 30 s for the whole request). */
export const EDGE_READY_TIMEOUT_MS = 20_000;

export interface DemoEdgesOptions {
  clock: Clock;
  /** Says when an edge process exits (and how to start it again) and when it starts again. */
  logger: Logger;
  /** The command that starts a node's edge again, for the line that says its process exited. */
  restartCommand: (node: string) => string;
  /** How long stopAll lets an edge shut its node down (stop its pods) before SIGKILL. */
  stopGraceMs: number;
  onLine?: (line: string) => void;
  /** After a restart, once the new process is ready. */
  onRestarted?: (node: string, localApiUrl: string) => Promise<void>;
  /** Starts one edge process; startRole (`kedge <args>`) unless a test says otherwise. */
  startProcess?: (options: RoleOptions) => RoleProcess;
  /** More environment for every edge process (its token: an argument would show in every user's `ps`). */
  env?: NodeJS.ProcessEnv;
}

interface Entry {
  args: string[];
  process: EdgeProcessState;
  localApiUrl: string;
  exitCode?: number | null;
  restarting: boolean;
}

/** A demo's edge processes: started, restarted one at a time per node, and asked for their own view. */
export class DemoEdges implements EdgeControl {
  /** The current process of each node. */
  readonly processes = new Map<string, RoleProcess>();
  private readonly entries = new Map<string, Entry>();
  /** Set by stopAll: nothing is started any more, so a restart in flight cannot leave a process behind. */
  private stopping = false;

  constructor(private readonly options: DemoEdgesOptions) {}

  /** Starts `kedge <args>` for `node` (its first start). */
  start(node: string, args: string[]): RoleProcess {
    this.entries.set(node, { args, process: 'starting', localApiUrl: '', restarting: false });
    return this.launch(node, []);
  }

  list(): EdgeProcessInfo[] {
    return [...this.entries.keys()].map((name) => this.info(name)!);
  }

  info(node: string): EdgeProcessInfo | undefined {
    const e = this.entries.get(node);
    if (!e) return undefined;
    const info: EdgeProcessInfo = { name: node, process: e.process, localApiUrl: e.localApiUrl };
    if (e.process === 'exited') info.exitCode = e.exitCode ?? null;
    return info;
  }

  restart(node: string, how: EdgeRestart): Promise<EdgeProcessInfo> | undefined {
    if (!this.entries.has(node)) return undefined;
    return this.restartProcess(node, { crash: how === 'crash', reboot: how === 'reboot' }).then(() => this.info(node)!);
  }

  /**
   * Ends the node's edge process (`kill -9` for a crash, else SIGTERM) and starts it again with
   * the same data dir (`--reboot` for a reboot). Resolves once the new process is ready.
   */
  async restartProcess(node: string, how: { crash?: boolean; reboot?: boolean } = {}): Promise<RoleProcess> {
    const entry = this.entries.get(node);
    if (!entry) throw new Error(`no node "${node}" in this demo`);
    if (entry.restarting) throw busy(node);
    entry.restarting = true;
    try {
      const old = this.processes.get(node)!;
      entry.process = 'stopping';
      await (how.crash ? old.kill() : old.stop());
      if (this.stopping) throw new Error(`the demo is stopping: ${node} is not started again`);
      const edge = this.launch(node, how.reboot ? ['--reboot'] : []);
      this.options.logger.info(`${node}'s edge process started again (pid ${edge.child.pid}${how.reboot ? ', as after a node reboot' : ''})`);
      await this.readyOrKilled(node, edge);
      await this.options.onRestarted?.(node, entry.localApiUrl);
      return edge;
    } finally {
      entry.restarting = false;
    }
  }

  view(node: string): Promise<EdgeView<Pod>> | undefined {
    const info = this.info(node);
    return info && edgeViewOf(info, (path) => this.localJson(info.localApiUrl, path));
  }

  /** Ends every edge process as the demo's own death would (its stdin closes): each stops its process pods first, unless started to keep them. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.processes.values()].map((e) => e.stopAsParent(this.options.stopGraceMs)));
  }

  /** Waits for a restarted edge's ready line; one that does not come in time is killed. */
  private async readyOrKilled(node: string, edge: RoleProcess): Promise<void> {
    let cancel = (): void => {};
    const late = new Promise<never>((_, reject) => {
      cancel = this.options.clock.setTimer(EDGE_READY_TIMEOUT_MS, () => reject(new Error(`${node} was not ready within ${EDGE_READY_TIMEOUT_MS / 1000} s of its restart, so it was killed`)));
    });
    try {
      await Promise.race([edge.ready, late]);
    } catch (err) {
      await edge.kill();
      throw err;
    } finally {
      cancel();
    }
  }

  private launch(node: string, extra: string[]): RoleProcess {
    const entry = this.entries.get(node)!;
    const edge = (this.options.startProcess ?? startRole)({
      name: node,
      args: [...entry.args, ...extra],
      env: this.options.env,
      readyPattern: /^kedge edge \S+ ready /,
      clock: this.options.clock,
      onLine: this.options.onLine,
      // Ctrl-C stops the demo, which then stops its edges in its own way (stopAll).
      ownProcessGroup: true,
    });
    const current = (): boolean => this.processes.get(node) === edge;
    this.processes.set(node, edge);
    entry.process = 'starting';
    edge.ready.then(
      (line) => {
        entry.localApiUrl = readyField(line, 'local-api');
        if (current()) entry.process = 'running';
      },
      () => {},
    );
    void edge.exited.then((code) => {
      this.sayExited(node, edge, code);
      if (!current()) return;
      entry.process = 'exited';
      entry.exitCode = code;
    });
    return edge;
  }

  /** One line per exit; one nobody asked for says how to start the edge again. */
  private sayExited(node: string, edge: RoleProcess, code: number | null): void {
    const how = code !== null ? `exit code ${code}` : `killed by ${edge.child.signalCode ?? 'a signal'}`;
    const line = `${node}'s edge process (pid ${edge.child.pid}) exited (${how})`;
    if (this.stopping || this.entries.get(node)!.restarting) this.options.logger.info(line);
    else this.options.logger.warn(`${line}; start it again with: ${this.options.restartCommand(node)}`);
  }

  private async localJson(base: string, path: string): Promise<unknown> {
    const abort = new AbortController();
    const cancel = this.options.clock.setTimer(LOCAL_API_TIMEOUT_MS, () => abort.abort(new Error(`no answer within ${LOCAL_API_TIMEOUT_MS} ms`)));
    try {
      const res = await fetch(`${base}${path}`, { signal: abort.signal });
      if (!res.ok) throw new Error(`${path} answered ${res.status}`);
      return await res.json();
    } finally {
      cancel();
    }
  }
}

/**
 * What an edge says itself, from its local API (`/connection` and `/pods`); when its process
 * does not run, or its local API does not answer, a view saying so.
 */
export async function edgeViewOf(info: EdgeProcessInfo, localJson: (path: string) => Promise<unknown>): Promise<EdgeView<Pod>> {
  const down = (message: string): EdgeView<Pod> => ({ name: info.name, process: info.process, connection: null, pods: null, message });
  if (info.process !== 'running') return down(`edge process down: ${describeDown(info)}`);
  try {
    const [connection, pods] = await Promise.all([localJson('/connection'), localJson('/pods')]);
    return { name: info.name, process: info.process, connection: connection as ConnectionReport, pods: (pods as ObjectList<Pod>).items };
  } catch (err) {
    return down(`the edge's local API (${info.localApiUrl}) did not answer: ${(err as Error).message}`);
  }
}

function describeDown(info: EdgeProcessInfo): string {
  if (info.process === 'exited') return `${info.name}'s process exited (code ${info.exitCode ?? 'none: killed by a signal'})`;
  return `${info.name}'s process is ${info.process}`;
}
