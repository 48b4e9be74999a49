import { Command, Option } from 'commander';
import { textTable } from '../text-table.js';
import type { ComponentState } from '../../cloud/components/component.js';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import { cloudRequest as request } from '../cloud-request.js';
import type { EdgeAddress } from '../edge-local-api.js';
import { nodeName } from '../options.js';
import { edgeComponentAction, edgeComponentStatus } from './component-edge.js';

interface ComponentOptions {
  dataDir: string;
  output: 'text' | 'json';
  node?: string;
  localApi?: string;
}

function withCommonOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'data dir of the running cloud or demo (its kubeconfig is read); with --node, of the demo, or of an edge started with kedge edge (default .kedge/edge/<node> when no demo runs)', DEFAULT_DEMO_DATA_DIR)
    .option('--node <name>', "an edge: act on its own components (kube-proxy, kedge-cni) through its local API, not on the cloud's", nodeName)
    .option('--local-api <url>', "with --node: the edge's local API, e.g. http://127.0.0.1:10550 (default: the demo's, else port 10550)")
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'));
}

/** The edge --node names, found as --data-dir and --local-api say. */
function edgeAddress(o: ComponentOptions, command: Command): EdgeAddress {
  return { node: o.node!, dataDir: o.dataDir, dataDirGiven: command.getOptionValueSource('dataDir') === 'cli', ...(o.localApi ? { localApi: o.localApi } : {}) };
}

function table(states: ComponentState[]): string {
  const rows = [['NAME', 'PARENT', 'STATUS', 'SINCE', 'MESSAGE']];
  for (const s of states) rows.push([s.name, s.parent ?? '-', s.running ? (s.healthy ? 'Running' : 'Unhealthy') : 'Stopped', s.since, s.message]);
  return textTable(rows);
}

async function run(o: ComponentOptions, work: () => Promise<{ json: unknown; text: string }>): Promise<void> {
  try {
    const out = await work();
    process.stdout.write((o.output === 'json' ? JSON.stringify(out.json, null, 2) : out.text) + '\n');
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}

function actionCommand(action: 'start' | 'stop', summary: string): Command {
  return withCommonOptions(new Command(action).description(summary).argument('<name>', 'component name, e.g. scheduler, controller-manager, store or broker; with --node, kube-proxy or kedge-cni')).action(
    (name: string, o: ComponentOptions, command: Command) =>
      run(o, async () => {
        if (o.node) return edgeComponentAction(edgeAddress(o, command), name, action);
        const state = (await request(o.dataDir, 'POST', `/kedge/v1/components/${encodeURIComponent(name)}/${action}`)) as ComponentState;
        return { json: state, text: `${state.name}: ${state.running ? 'running' : 'stopped'} since ${state.since}` };
      }),
  );
}

export function componentCommand(): Command {
  const status = withCommonOptions(
    new Command('status').description("Show every component (apiserver, store, broker, hub, scheduler, controllers), or one: running or stopped, since when, and its health; with --node, the edge's").argument('[name]', 'only this component'),
  ).action((name: string | undefined, o: ComponentOptions, command: Command) =>
    run(o, async () => {
      if (o.node) return edgeComponentStatus(edgeAddress(o, command), name);
      const { items } = (await request(o.dataDir, 'GET', '/kedge/v1/components')) as { items: ComponentState[] };
      const shown = name === undefined ? items : items.filter((c) => c.name === name);
      if (name !== undefined && shown.length === 0) throw new Error(`no component named "${name}" (the cloud's: ${items.map((c) => c.name).join(', ')})`);
      return { json: name === undefined ? { items } : shown[0], text: table(shown) };
    }),
  );
  return new Command('component')
    .description("Stop and start parts of the cloud while it runs (the store, the broker, the scheduler, the controller-manager or one controller), or with --node <edge> the edge's own (kube-proxy, kedge-cni).")
    .addCommand(actionCommand('stop', 'Stop a component (pods already running are untouched; nothing new is decided)'))
    .addCommand(actionCommand('start', 'Start a stopped component again'))
    .addCommand(status);
}
