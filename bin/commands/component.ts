import { Command, Option } from 'commander';
import { textTable } from '../text-table.js';
import type { ComponentState } from '../../cloud/components/component.js';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import { cloudRequest as request } from '../cloud-request.js';

interface ComponentOptions {
  dataDir: string;
  output: 'text' | 'json';
}

function withCommonOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'data dir of the running cloud or demo (its kubeconfig is read)', DEFAULT_DEMO_DATA_DIR)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'));
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
  return withCommonOptions(new Command(action).description(summary).argument('<name>', 'component name, e.g. scheduler, controller-manager, store or broker')).action(
    (name: string, o: ComponentOptions) =>
      run(o, async () => {
        const state = (await request(o.dataDir, 'POST', `/kedge/v1/components/${encodeURIComponent(name)}/${action}`)) as ComponentState;
        return { json: state, text: `${state.name}: ${state.running ? 'running' : 'stopped'} since ${state.since}` };
      }),
  );
}

export function componentCommand(): Command {
  const status = withCommonOptions(new Command('status').description('Show every component (apiserver, store, broker, hub, scheduler, controllers): running or stopped, since when, and its health')).action(
    (o: ComponentOptions) =>
      run(o, async () => {
        const { items } = (await request(o.dataDir, 'GET', '/kedge/v1/components')) as { items: ComponentState[] };
        return { json: { items }, text: table(items) };
      }),
  );
  return new Command('component')
    .description("Stop and start parts of the cloud while it runs: the store, the broker, the scheduler, the controller-manager or one controller.")
    .addCommand(actionCommand('stop', 'Stop a component (pods already running are untouched; nothing new is decided)'))
    .addCommand(actionCommand('start', 'Start a stopped component again'))
    .addCommand(status);
}
