import { resolve } from 'node:path';
import { Command } from 'commander';
import type { EtcdMemberAction, EtcdMemberInfo } from '../../sim/demo-etcd.js';
import { kedgeCommandFor } from '../../sim/demo-file.js';
import { textTable } from '../text-table.js';
import { withParentDataDir } from './demo-edges.js';
import { runOnDemo, withDemoOptions, type LinkOptions } from './on-demo.js';

const verbs: Record<EtcdMemberAction, string> = {
  stop: 'Stop an etcd member of a demo on etcd (SIGTERM): it leaves cleanly, its data stays',
  start: 'Start a stopped or killed etcd member again on its ports and data: it serves clients once a quorum runs',
  kill: 'Kill an etcd member (kill -9): a crash; its data stays',
};

function verbCommand(action: EtcdMemberAction): Command {
  return withDemoOptions(new Command(action).description(verbs[action]).argument('<member>', 'etcd member, e.g. etcd-1 (see kedge demo etcd status)')).action(
    (member: string, o: LinkOptions, command: Command) =>
      runOnDemo(withParentDataDir(o, command), async (client) => {
        const acted = await client.actOnEtcd(member, action);
        return { json: acted, text: `${acted.message} (${acted.clientUrl})` };
      }),
  );
}

function table(items: EtcdMemberInfo[]): string {
  return textTable([['MEMBER', 'STATE', 'PID', 'CLIENT-URL'], ...items.map((m) => [m.name, m.state, m.pid === undefined ? '-' : String(m.pid), m.clientUrl])]);
}

/** `kedge demo etcd stop|start|kill <member>` and `kedge demo etcd status`: a demo started with --etcd N. */
export function demoEtcdCommand(): Command {
  const status = withDemoOptions(new Command('status').description("List the demo's etcd members: running or stopped, pid and client URL")).action((o: LinkOptions, command: Command) =>
    runOnDemo(withParentDataDir(o, command), async (client) => {
      const items = await client.etcdMembers();
      return { json: { items }, text: table(items) };
    }),
  );
  const etcd = new Command('etcd').description("Stop, start or kill the etcd members of a demo started with --etcd N (their health: kedge component status)");
  for (const action of Object.keys(verbs) as EtcdMemberAction[]) etcd.addCommand(verbCommand(action));
  return etcd.addCommand(status);
}

/** What `kedge demo --etcd N` prints of its members. */
export function etcdLines(members: readonly { name: string; clientUrl: string }[] | undefined, dataDir: string): string[] {
  if (!members) return [];
  return [
    `  etcd: ${members.length} member${members.length === 1 ? '' : 's'} (the cloud's store), data and log (etcd.log) in ${resolve(dataDir, 'etcd')}`,
    ...members.map((m) => `    ${m.name}  ${m.clientUrl}`),
    `  ${kedgeCommandFor(dataDir, 'demo etcd stop etcd-0')}    # stop a member (start, kill); their health: ${kedgeCommandFor(dataDir, 'component status')}`,
  ];
}
