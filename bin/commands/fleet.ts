import { PodStartupRecorder, preciseWallTime } from '../../shared/trace/pod-startup-trace.js';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { realClock } from '../../shared/clock.js';
import type { Logger, LogSettings } from '../../shared/log.js';
import { defaultTiming, scaleTiming } from '../../shared/timing.js';
import { logSettings, withLogOptions } from '../log-options.js';
import { nodeName, numberIn, port, positive } from '../options.js';
import { runUntilStopped, type Running } from '../process-lifetime.js';
import { requireEveryOption } from '../required-options.js';

interface FleetCommandOptions {
  nodes: number;
  podsPerNode: number;
  broker: string;
  token: string;
  kubeconfig?: string;
  dataDir: string;
  namePrefix: string;
  links?: boolean;
  timeScale: number;
  controlPort: number;
  tracePodStartup?: boolean;
  logFormat: LogSettings['format'];
  logLevel: LogSettings['level'];
}

/** Hollow edges log only what went wrong: a thousand "connected" lines help nobody. */
function warningsOnly(logger: Logger): Logger {
  return { debug: () => {}, info: () => {}, warn: logger.warn, error: logger.error, child: (c) => warningsOnly(logger.child(c)) };
}

/** A whole number from min to max. */
function count(min: number, max: number): (value: string) => number {
  const inRange = numberIn(min, max);
  return (value) => {
    const n = inRange(value);
    if (!Number.isInteger(n)) throw new InvalidArgumentError(`expected a whole number, got "${value}".`);
    return n;
  };
}

const say = (line: string): boolean => process.stdout.write(line + '\n');

async function start(o: FleetCommandOptions, logger: Logger): Promise<Running> {
  const { startFleet, FLEET_FILE } = await import('../../sim/fleet.js');
  const { startControlApi } = await import('../../sim/control-api.js');
  const { newToken } = await import('../../cloud/apiserver/auth/credentials.js');
  const { writePrivate } = await import('../../shared/private-file.js');
  const access = o.kubeconfig ? await (await import('../../sim/fleet-pods.js')).readKubeconfig(o.kubeconfig) : undefined;
  const fleet = await startFleet({
    nodes: o.nodes,
    namePrefix: o.namePrefix,
    brokerUrl: o.broker,
    token: o.token,
    dataDir: resolve(o.dataDir),
    timing: scaleTiming(defaultTiming, o.timeScale),
    logger: warningsOnly(logger),
    links: Boolean(o.links),
    ...(o.tracePodStartup && { podStartups: new PodStartupRecorder(preciseWallTime) }),
  });
  const running: Running = { stop: () => fleet.stop() };
  try {
    say(`kedge fleet: ${fleet.edges.size} hollow edges started`);
    // Anyone on the machine reaches 127.0.0.1: the control API wants the token kept in the data dir (0600).
    const controlToken = newToken();
    const podStartups = fleet.podStartups && (() => fleet.podStartups!.snapshot());
    const control = await startControlApi({ links: fleet.links, pods: (node) => fleet.nodePods(node), logger: logger.child('control'), port: o.controlPort, token: controlToken, podStartups });
    const fleetFile = join(resolve(o.dataDir), FLEET_FILE);
    running.stop = async () => {
      await control.close();
      await rm(fleetFile, { force: true });
      await fleet.stop();
    };
    await writePrivate(fleetFile, JSON.stringify({ pid: process.pid, controlUrl: control.url, controlToken }, null, 2) + '\n');
    if (access && o.podsPerNode > 0) await createPods(o, access, fleet.names);
    say(`kedge fleet ready nodes=${fleet.edges.size} control=${control.url} data-dir=${resolve(o.dataDir)}`);
    return running;
  } catch (err) {
    await running.stop();
    throw err;
  }
}

async function createPods(o: FleetCommandOptions, access: { server: string; token: string; ca?: string }, names: string[]): Promise<void> {
  const { createRemoteClient } = await import('../../cloud/apiserver/http/remote-handler.js');
  const { createFleetPods, fleetPod, fleetPodNames, waitForReadyNodes } = await import('../../sim/fleet-pods.js');
  const api = createRemoteClient(access.server, access.token, access.ca);
  await waitForReadyNodes(api, names, {
    clock: realClock,
    timeoutMs: 120_000 + names.length * 100,
    onProgress: (ready) => say(`kedge fleet: ${ready}/${names.length} nodes Ready`),
  });
  const pods = fleetPodNames(names, o.podsPerNode).map((name) => fleetPod(name, o.namePrefix));
  const step = Math.max(1, Math.ceil(pods.length / 10));
  const created = await createFleetPods(api, pods, {
    onProgress: (done, total) => (done % step === 0 || done === total) && say(`kedge fleet: ${done}/${total} pods created`),
  });
  if (created < pods.length) say(`kedge fleet: ${pods.length - created} of the pods existed already`);
}

export function fleetCommand(): Command {
  const command = withLogOptions(new Command('fleet')
    .description('Run N hollow edges in one process (like kubemark hollow nodes): each its own MQTT connection, identity, cache and sim runtime.')
    .requiredOption('--nodes <n>', 'how many hollow edges', count(1, 100_000))
    .option('--pods-per-node <m>', 'once every node is Ready, create N×M unbound pods (needs --kubeconfig)', count(0, 10_000), 0)
    .requiredOption('--broker <url>', "the cloud's MQTT broker, e.g. mqtt://127.0.0.1:1883")
    .requiredOption('--token <token>', 'edge token issued by the cloud (<cloud data dir>/tokens.json)')
    .option('--kubeconfig <path>', "the cloud's admin kubeconfig (<cloud data dir>/kubeconfig), to create pods")
    .option('--data-dir <dir>', 'each hollow edge keeps its cache and runtime state in <dir>/<node>', '.kedge/fleet')
    .option('--name-prefix <p>', 'nodes are named <p>-1 … <p>-N', nodeName, 'hollow')
    .option('--links', 'put a link proxy between every edge and the broker (cut/heal/reset, byte counts)')
    .option('--time-scale <n>', 'divide every protocol and control interval by n', positive, 1)
    .option('--control-port <port>', 'port of the control API on 127.0.0.1 (0: a free one)', port, 0)
    .option('--trace-pod-startup', 'note when each pod reaches its edge and when the edge sends the status saying it runs; read at <control>/debug/pod-startups'));
  return requireEveryOption(command).action(async (o: FleetCommandOptions) => {
    if (o.podsPerNode > 0 && !o.kubeconfig) {
      command.error("error: --pods-per-node needs --kubeconfig (the cloud's admin kubeconfig, <cloud data dir>/kubeconfig) to create the pods");
    }
    await runUntilStopped('fleet', (logger) => start(o, logger), logSettings(o), [{ port: o.controlPort, host: '127.0.0.1', option: '--control-port', what: 'the control API' }]);
  });
}
