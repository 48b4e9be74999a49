import { Command } from 'commander';
import { EDGE_RESTARTS, type EdgeProcessInfo, type EdgeRestart } from '../../sim/edge-routes.js';
import { nodeName } from '../options.js';
import { runOnDemo, withDemoOptions, type LinkOptions } from './on-demo.js';

/** As the dashboard's buttons (and the control API's POST /edges/<node>/<verb>). */
const verbs: Record<EdgeRestart, { description: string; doing: string; done: string }> = {
  restart: {
    description: "Stop the edge's process (SIGTERM) and start it again with the same data dir: it adopts the pods it ran",
    doing: 'stopping its edge process (SIGTERM) and starting it again',
    done: 'edge process restarted',
  },
  crash: {
    description: "Kill the edge's process (kill -9) and start it again with the same data dir: it adopts the pods it ran",
    doing: 'killing its edge process (kill -9) and starting it again',
    done: 'edge process killed (kill -9) and started again',
  },
  reboot: {
    description: 'Reboot the node: stop its edge (SIGTERM) and start it as after a node reboot (--reboot): its containers start again',
    doing: 'stopping its edge process and starting it as after a node reboot',
    done: 'node rebooted',
  },
};

/** `kedge demo --data-dir D crash edge-1` (or `… etcd stop etcd-1`) means D too. */
export function withParentDataDir(o: LinkOptions, command: Command): LinkOptions {
  let parent = command.parent;
  while (parent && parent.getOptionValueSource('dataDir') === undefined) parent = parent.parent;
  const fromParent = command.getOptionValueSource('dataDir') === 'default' && parent?.getOptionValueSource('dataDir') === 'cli';
  return fromParent ? { ...o, dataDir: parent!.opts<{ dataDir: string }>().dataDir } : o;
}

function verbCommand(verb: EdgeRestart): Command {
  const { description, doing, done } = verbs[verb];
  return withDemoOptions(new Command(verb).description(description).argument('<node>', 'edge node name, e.g. edge-1', nodeName)).action((node: string, o: LinkOptions, command: Command) =>
    runOnDemo(withParentDataDir(o, command), async (client) => {
      if (o.output === 'text') process.stderr.write(`${node}: ${doing}…\n`);
      const info: EdgeProcessInfo = await client.restartEdge(node, verb);
      return { json: info, text: `${info.name}: ${done}; its process is ${info.process}, local API ${info.localApiUrl}` };
    }),
  );
}

/** `kedge demo restart|crash|reboot <node>`: a running demo's edge processes, from the command line. */
export function demoEdgeCommands(): Command[] {
  return EDGE_RESTARTS.map(verbCommand);
}
