import { Command, Option } from 'commander';
import type { CriContainerStats } from '../../edge/cri/cri-routes.js';
import type { CriContainer, CriContainerStatus, CriPodSandbox } from '../../edge/cri/cri-view.js';
import { realClock } from '../../shared/clock.js';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import { crictlTable, humanDuration, humanSize, millisOf, rfc3339Nano, truncatedId } from '../crictl-format.js';
import { localApiRequest, resolveEdge, type EdgeTarget } from '../edge-local-api.js';
import { nodeName, numberIn, positive } from '../options.js';
import { printOrFail } from '../print-or-fail.js';

interface EdgeOptions {
  node: string;
  dataDir: string;
  localApi?: string;
}

const titled = (state: string, prefix: string): string => state.slice(prefix.length).split('_').map((w) => w[0] + w.slice(1).toLowerCase()).join('');
const ago = (nanos: string, now: number): string => `${humanDuration(now - millisOf(nanos))} ago`;
const newestFirst = <T extends { createdAt: string }>(items: T[]): T[] => [...items].sort((a, b) => Number(BigInt(b.createdAt) - BigInt(a.createdAt)));

/** Runs `work` against the edge that --node (with --data-dir, --local-api) names, printing what it returns. */
function onEdge(command: Command, work: (edge: EdgeTarget) => Promise<string>): Promise<void> {
  const o = command.optsWithGlobals<EdgeOptions>();
  const dataDirGiven = command.parent!.getOptionValueSource('dataDir') === 'cli';
  return printOrFail(async () => work(await resolveEdge({ node: o.node, dataDir: o.dataDir, dataDirGiven, ...(o.localApi ? { localApi: o.localApi } : {}) })));
}

export function psTable(containers: CriContainer[], now: number): string {
  const rows = [['CONTAINER', 'IMAGE', 'CREATED', 'STATE', 'NAME', 'ATTEMPT', 'POD ID', 'POD']];
  for (const c of newestFirst(containers)) {
    const pod = c.labels['io.kubernetes.pod.name'] ?? 'unknown';
    rows.push([truncatedId(c.id), c.image.image, ago(c.createdAt, now), titled(c.state, 'CONTAINER_'), c.metadata.name, String(c.metadata.attempt), truncatedId(c.podSandboxId), pod]);
  }
  return crictlTable(rows);
}

export function podsTable(pods: CriPodSandbox[], now: number): string {
  const rows = [['POD ID', 'CREATED', 'STATE', 'NAME', 'NAMESPACE', 'ATTEMPT', 'RUNTIME']];
  for (const p of newestFirst(pods)) {
    rows.push([truncatedId(p.id), ago(p.createdAt, now), titled(p.state, 'SANDBOX_'), p.metadata.name, p.metadata.namespace, String(p.metadata.attempt), p.runtimeHandler || '(default)']);
  }
  return crictlTable(rows);
}

/** CPU % over the two samples (as crictl takes them); `-` where the runtime cannot tell (simulated containers). */
export function statsTable(before: CriContainerStats[], after: CriContainerStats[]): string {
  const rows = [['CONTAINER', 'NAME', 'CPU %', 'MEM', 'DISK', 'INODES']];
  const earlier = new Map(before.map((s) => [s.attributes.id, s]));
  for (const s of [...after].sort((a, b) => a.attributes.id.localeCompare(b.attributes.id))) {
    const old = earlier.get(s.attributes.id)?.cpu;
    const elapsed = s.cpu && old ? millisOf(s.cpu.timestamp) - millisOf(old.timestamp) : 0;
    const cpu = s.cpu && old && elapsed > 0 ? ((Number(s.cpu.usageCoreNanoSeconds.value) - Number(old.usageCoreNanoSeconds.value)) / (elapsed * 1e6)) * 100 : undefined;
    const mem = s.memory ? humanSize(Number(s.memory.workingSetBytes.value)) : '-';
    rows.push([truncatedId(s.attributes.id), s.attributes.metadata.name, cpu === undefined ? '-' : cpu.toFixed(2), mem, '-', '-']);
  }
  return crictlTable(rows);
}

/** What crictl inspect prints: the status with its times in RFC 3339, and the runtime's info. */
export function inspectJson(inspected: CriContainerStatus): string {
  const { status, info } = inspected;
  const times = { createdAt: rfc3339Nano(status.createdAt), startedAt: rfc3339Nano(status.startedAt), finishedAt: rfc3339Nano(status.finishedAt) };
  return JSON.stringify({ status: { ...status, ...times }, info }, null, 2) + '\n';
}

const jsonOutput = (): Option => new Option('-o, --output <format>', 'output format').choices(['table', 'json']).default('table');
const wantsJson = (command: Command): boolean => command.opts<{ output: string }>().output === 'json';

function psCommand(): Command {
  return new Command('ps')
    .description('List containers (running ones; -a for all)')
    .option('-a, --all', 'show all containers, not only running ones')
    .option('-q, --quiet', 'only the full container IDs')
    .addOption(jsonOutput())
    .action((o: { all?: boolean; quiet?: boolean }, command: Command) =>
      onEdge(command, async (edge) => {
        const { containers } = (await localApiRequest(edge, 'GET', '/cri/containers')) as { containers: CriContainer[] };
        const shown = o.all ? containers : containers.filter((c) => c.state === 'CONTAINER_RUNNING');
        if (wantsJson(command)) return JSON.stringify({ containers: shown }, null, 2) + '\n';
        return o.quiet ? newestFirst(shown).map((c) => `${c.id}\n`).join('') : psTable(shown, realClock.now());
      }),
    );
}

function podsCommand(): Command {
  return new Command('pods')
    .description('List pod sandboxes')
    .option('-q, --quiet', 'only the full pod IDs')
    .addOption(jsonOutput())
    .action((o: { quiet?: boolean }, command: Command) =>
      onEdge(command, async (edge) => {
        const { items } = (await localApiRequest(edge, 'GET', '/cri/pods')) as { items: CriPodSandbox[] };
        if (wantsJson(command)) return JSON.stringify({ items }, null, 2) + '\n';
        return o.quiet ? newestFirst(items).map((p) => `${p.id}\n`).join('') : podsTable(items, realClock.now());
      }),
    );
}

function inspectCommand(): Command {
  return new Command('inspect')
    .description('Show the status of a container (an ID, or enough of its start to name one)')
    .argument('<id>', 'container ID or a prefix of it')
    .action((id: string, _o: unknown, command: Command) =>
      onEdge(command, async (edge) => inspectJson((await localApiRequest(edge, 'GET', `/cri/containers/${encodeURIComponent(id)}`)) as CriContainerStatus)),
    );
}

function logsCommand(): Command {
  return new Command('logs')
    .description("Print a container's log (an ID, or enough of its start to name one)")
    .argument('<id>', 'container ID or a prefix of it')
    .option('--tail <n>', 'only the last n lines', (v) => String(Math.floor(numberIn(0, 1e9)(v))))
    .option('-t, --timestamps', 'show each line\'s time')
    .action((id: string, o: { tail?: string; timestamps?: boolean }, command: Command) =>
      onEdge(command, async (edge) => {
        const query = new URLSearchParams({ ...(o.tail ? { tail: o.tail } : {}), ...(o.timestamps ? { timestamps: 'true' } : {}) });
        return (await localApiRequest(edge, 'GET', `/cri/containers/${encodeURIComponent(id)}/logs?${query}`)) as string;
      }),
    );
}

function statsCommand(): Command {
  return new Command('stats')
    .description('List resource usage of containers (running ones; -a for all): real for process containers, - where the runtime cannot tell')
    .option('-a, --all', 'show all containers, not only running ones')
    .option('-s, --seconds <n>', 'sample CPU usage over this many seconds', positive, 1)
    .addOption(jsonOutput())
    .action((o: { all?: boolean; seconds: number }, command: Command) =>
      onEdge(command, async (edge) => {
        const sample = async () => ((await localApiRequest(edge, 'GET', '/cri/stats')) as { stats: CriContainerStats[] }).stats;
        const running = new Set((((await localApiRequest(edge, 'GET', '/cri/containers')) as { containers: CriContainer[] }).containers).filter((c) => c.state === 'CONTAINER_RUNNING').map((c) => c.id));
        const shown = (stats: CriContainerStats[]) => (o.all ? stats : stats.filter((s) => running.has(s.attributes.id)));
        const before = shown(await sample());
        if (wantsJson(command)) return JSON.stringify({ stats: before }, null, 2) + '\n';
        await realClock.sleep(o.seconds * 1000);
        return statsTable(before, shown(await sample()));
      }),
    );
}

/** `kedge crictl --node edge-1 ps|pods|inspect|logs|stats`: crictl's reads of an edge's runtime, from its local API (no cloud needed). */
export function crictlCommand(): Command {
  return new Command('crictl')
    .description("crictl's reads of an edge's containers (ps, pods, inspect, logs, stats), from the edge's local API: they work while the edge is cut off from the cloud")
    .requiredOption('--node <name>', 'the edge, e.g. edge-1', nodeName)
    .option('--data-dir <dir>', "data dir of the running demo (its demo.json says where the edge's local API is), or of an edge started with kedge edge (default .kedge/edge/<node> when no demo runs)", DEFAULT_DEMO_DATA_DIR)
    .option('--local-api <url>', "the edge's local API, e.g. http://127.0.0.1:10550 (default: the demo's, else port 10550)")
    .addCommand(psCommand())
    .addCommand(podsCommand())
    .addCommand(inspectCommand())
    .addCommand(logsCommand())
    .addCommand(statsCommand());
}
