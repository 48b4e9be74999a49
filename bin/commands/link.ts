import { Command, Option } from 'commander';
import { textTable } from '../text-table.js';
import { realClock } from '../../shared/clock.js';
import { DEFAULT_DEMO_DATA_DIR } from '../../sim/demo-file.js';
import { LinkClient, LinkCommandError, type LinkAction } from '../../sim/link-client.js';
import type { LinkState } from '../../sim/link-proxy.js';
import { nodeName } from '../options.js';

export interface LinkOptions {
  dataDir: string;
  output: 'text' | 'json';
}

const describe: Record<LinkAction, string> = {
  cut: "Pull the edge's cable: bytes stop both ways, no FIN, no RST; both ends find out by keepalive",
  heal: 'Plug it back in: bytes held during the cut arrive; connections that lost an end are reset',
  reset: "Reset every connection on the edge's link (both ends get an RST); the link stays as it is",
};

/** --data-dir (of the running demo) and -o text|json, as every command on a running demo takes. */
export function withDemoOptions(command: Command): Command {
  return command
    .option('--data-dir <dir>', 'data dir of the running demo', DEFAULT_DEMO_DATA_DIR)
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'));
}

function summary(s: LinkState): string {
  return `${s.state} since ${s.since} (${s.connections} connection${s.connections === 1 ? '' : 's'})`;
}

function table(states: LinkState[]): string {
  const rows = [['NODE', 'LINK', 'SINCE', 'CONNECTIONS', 'BYTES-UP', 'BYTES-DOWN']];
  for (const s of states) rows.push([s.name, s.state, s.since, String(s.connections), String(s.bytesUp), String(s.bytesDown)]);
  return textTable(rows);
}

/** Runs one command on the running demo: prints its result, or the problem on stderr with exit code 1. */
export async function runOnDemo(o: LinkOptions, work: (client: LinkClient) => Promise<{ json: unknown; text: string }>): Promise<void> {
  try {
    const client = await LinkClient.connect(o.dataDir, realClock);
    const out = await work(client);
    process.stdout.write((o.output === 'json' ? JSON.stringify(out.json, null, 2) : out.text) + '\n');
  } catch (err) {
    const message = err instanceof LinkCommandError ? err.message : `cannot reach the demo: ${(err as Error).message}`;
    process.stderr.write(`error: ${message}\n`);
    process.exitCode = 1;
  }
}

function actionCommand(action: LinkAction): Command {
  return withDemoOptions(new Command(action).description(describe[action]).argument('<node>', 'edge node name, e.g. edge-1', nodeName)).action(
    (node: string, o: LinkOptions) =>
      runOnDemo(o, async (client) => {
        const state = await client.act(node, action);
        const text = action === 'reset' ? `${state.name}: connections reset; link ${summary(state)}` : `${state.name}: ${summary(state)}`;
        return { json: state, text };
      }),
  );
}

export function linkCommand(): Command {
  const status = withDemoOptions(new Command('status').description('Show the state of every link, or of one').argument('[node]', 'edge node name', nodeName)).action(
    (node: string | undefined, o: LinkOptions) =>
      runOnDemo(o, async (client) => {
        if (node) {
          const state = await client.get(node);
          return { json: state, text: table([state]) };
        }
        const items = await client.list();
        return { json: { items }, text: table(items) };
      }),
  );
  return new Command('link')
    .description("Cut, heal or reset the network link between a running demo's edge and the broker.")
    .addCommand(actionCommand('cut'))
    .addCommand(actionCommand('heal'))
    .addCommand(actionCommand('reset'))
    .addCommand(status);
}
