import { Command } from 'commander';
import { textTable } from '../text-table.js';
import type { LinkAction } from '../../sim/link-client.js';
import { describeProfile } from '../../sim/link-shape/profile.js';
import type { LinkState } from '../../sim/link-proxy.js';
import { nodeName } from '../options.js';
import { flapCommand, flapText, shapeCommand } from './link-shape.js';
import { runOnDemo, withDemoOptions, type LinkOptions } from './on-demo.js';


const describe: Record<LinkAction, string> = {
  cut: "Pull the edge's cable: bytes stop both ways, no FIN, no RST; both ends find out by keepalive",
  heal: 'Plug it back in: bytes held during the cut arrive; connections that lost an end are reset',
  reset: "Reset every connection on the edge's link (both ends get an RST); the link stays as it is",
};

function summary(s: LinkState): string {
  return `${s.state} since ${s.since} (${s.connections} connection${s.connections === 1 ? '' : 's'})`;
}

function table(states: LinkState[]): string {
  const rows = [['NODE', 'LINK', 'SINCE', 'CONNECTIONS', 'BYTES-UP', 'BYTES-DOWN', 'PROFILE', 'SHAPE', 'FLAP', 'DELAYED', 'DROPPED', 'QUEUED']];
  for (const s of states) {
    const shaping = [s.profile?.name ?? '-', s.profile ? describeProfile(s.profile) : '-', s.flap ? flapText(s.flap) : '-'];
    const counts = [s.delayedChunks, s.droppedSegments, s.queuedUp + s.queuedDown].map(String);
    rows.push([s.name, s.state, s.since, String(s.connections), String(s.bytesUp), String(s.bytesDown), ...shaping, ...counts]);
  }
  return textTable(rows);
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
    .description("Cut, heal, reset, shape or flap the network link between a running demo's edge and the broker.")
    .addCommand(actionCommand('cut'))
    .addCommand(actionCommand('heal'))
    .addCommand(actionCommand('reset'))
    .addCommand(shapeCommand())
    .addCommand(flapCommand())
    .addCommand(status);
}
