import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { defaultTiming, scaledMs, scaleTiming } from '../../shared/timing.js';
import { MAX_PODS_LIMIT } from '../../edge/edged/node-status.js';
import { podRange } from '../../edge/network/cni/ipv4-range.js';
import { logSettings, withLogOptions } from '../log-options.js';
import { brokerList, envVar, ipAddress, nodeName, numberIn, port, positive } from '../options.js';
import { runUntilStopped } from '../process-lifetime.js';
import { requireEveryOption } from '../required-options.js';
import { DEFAULT_LOCAL_API_PORT } from '../edge-local-api.js';

export function edgeCommand(): Command {
  const command = withLogOptions(new Command('edge')
    .description('Run an edge node: MQTT hub, local cache, kubelet (edged), runtime and the local API.')
    .requiredOption('--node <name>', 'node name', nodeName)
    .option('--cloud <url>', "join this cloud's API, e.g. https://10.0.0.1:6443, with a join token (kedge token create --node)")
    .option('--broker <url>', 'MQTT broker URL, e.g. mqtt://127.0.0.1:1883, or several comma-separated (the members of a broker cluster, or one per cloud), tried in turn (with --cloud: default the ones the cloud names)', brokerList)
    .addOption(
      new Option('--token <token>', 'with --cloud, a join token; without, the edge token of a cloud on this machine (<cloud data dir>/tokens.json, "edge")')
        .env('KEDGE_TOKEN')
        .makeOptionMandatory(),
    )
    .option('--data-dir <dir>', 'where the cache and runtime state live (default .kedge/edge/<node>)')
    .option('--local-api-port <port>', 'port of the local API on 127.0.0.1', port, DEFAULT_LOCAL_API_PORT)
    .option('--time-scale <n>', 'divide every protocol and control interval by n', positive, 1)
    .option('--keepalive <seconds>', "MQTT keepalive: a silent broker (a pulled cable) is given up on after 1.5 times this", numberIn(1, 600), defaultTiming.keepaliveMs / 1000)
    .option('--max-pods <n>', "the node's capacity in pods, as the kubelet's flag (pod IPs come from the node's podCIDR: a /24 holds 253)", numberIn(1, MAX_PODS_LIMIT), 110)
    .option('--host-root <dir>', "where hostPath volumes resolve: a pod's hostPath /data is <dir>/data (default <data-dir>/host; / for the real host paths)")
    .option('--node-ip <addr>', "the node's address: its InternalIP, where its NodePorts listen, and the pod IP of hostNetwork pods (default 127.0.0.1; on another machine, that machine's address). Pod IPs come from the node's podCIDR: loopback addresses of this machine unless the cloud's --cluster-cidr says otherwise", ipAddress)
    .option('--pod-cidr <cidr>', "as the kubelet's flag: pod IPs from this IPv4 CIDR while the cloud has assigned the node no podCIDR", podCIDR)
    .option(
      '--shutdown-grace-period <seconds>',
      "started by a parent (kedge demo): the parent's end stops the process pods, as a node shutdown (SIGTERM, then SIGKILL after at most this long); 0 leaves them running",
      numberIn(0, 3600),
      0,
    )
    .option('--pod-env <NAME=value>', "an environment variable every container on this node gets (repeatable; a container's own env and its Services' win); kedge demo sets KEDGE_LINK_SINK", envVar)
    .option('--reboot', 'start as after a node reboot: containers from before are gone and start again'));
  // --cloud to join with a join token, or --broker with the edge token.
  return requireEveryOption(command, [['--cloud', '--broker']]).action(async (o) => {
    // Loaded on use, so that light commands (kedge link) start fast.
    const { startEdge } = await import('../../edge/main.js');
    const { joinCloud } = await import('../../edge/join.js');
    const { crashPointFrom } = await import('../../edge/crash-point.js');
    const { lockDataDir } = await import('../../shared/data-dir-lock.js');
    const dataDir = resolve(o.dataDir ?? `.kedge/edge/${o.node}`);
    await runUntilStopped(`edge/${o.node}`, async (logger) => {
      // Only the durability tests set it: crash at a step of a pod's start.
      const crashPoint = crashPointFrom(process.env.KEDGE_CRASH_AT);
      // Before joining: credential.json is the data dir's too.
      const lock = await lockDataDir(dataDir, { command: `kedge edge ${o.node}`, logger });
      const joined = o.cloud ? await joinCloud({ cloudUrl: o.cloud, token: o.token, node: o.node, dataDir, logger }).catch(async (err: unknown) => {
        await lock.release();
        throw err;
      }) : undefined;
      const timing = scaleTiming({ ...defaultTiming, keepaliveMs: o.keepalive * 1000 }, o.timeScale);
      const edge = await startEdge({
        lock,
        nodeName: o.node,
        brokerUrl: o.broker ?? joined!.brokerUrl,
        token: joined?.password ?? o.token,
        ...(joined ? { ca: joined.caPem } : {}),
        dataDir,
        localApiPort: o.localApiPort,
        timing,
        logger,
        reboot: Boolean(o.reboot),
        maxPods: o.maxPods,
        ...(o.nodeIp ? { nodeIp: o.nodeIp } : {}),
        ...(o.podCidr ? { podCIDR: o.podCidr } : {}),
        ...(o.hostRoot ? { hostRoot: resolve(o.hostRoot) } : {}),
        ...(o.podEnv ? { podEnv: o.podEnv as Record<string, string> } : {}),
        crashPoint,
      });
      process.stdout.write(`kedge edge ${o.node} ready local-api=${edge.localApiUrl} data-dir=${dataDir}\n`);
      // A signal stops the edge alone: its pods run on, to be adopted by its next start.
      const shutdownGraceMs = scaledMs(timing, o.shutdownGracePeriod);
      return { stop: (reason) => (reason === 'parent' && shutdownGraceMs > 0 ? edge.shutdown(shutdownGraceMs) : edge.stop()) };
    }, logSettings(o), [{ port: o.localApiPort, host: '127.0.0.1', option: '--local-api-port', what: 'the local API' }]);
  });
}

function podCIDR(value: string): string {
  if (!podRange(value)) throw new InvalidArgumentError(`"${value}" is not an IPv4 CIDR with room for pods (e.g. 127.64.1.0/24).`);
  return value;
}
