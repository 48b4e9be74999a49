import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Clock } from '../../shared/clock.js';

/** Debian's etcd (package etcd-server). */
export const ETCD_BIN = '/usr/bin/etcd';

export function requireEtcd(): void {
  if (!existsSync(ETCD_BIN)) throw new Error(`${ETCD_BIN} is missing: install the Debian package etcd-server (apt-get install etcd-server)`);
}

/** etcd's client TLS: its serving certificate, and the CA client certificates must be signed by (--client-cert-auth). */
export interface EtcdServerTls {
  certFile: string;
  keyFile: string;
  trustedCaFile: string;
}

/** One member's fixed identity: its ports and data dir stay the same across restarts, as its peers expect. */
export interface MemberSpec {
  name: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
  /** Clients speak TLS with a client certificate (peers speak plain HTTP on loopback). */
  tls?: EtcdServerTls;
}

export const clientUrl = (m: MemberSpec): string => `${m.tls ? 'https' : 'http'}://127.0.0.1:${m.clientPort}`;
export const peerUrl = (m: MemberSpec): string => `http://127.0.0.1:${m.peerPort}`;

/** etcd's flags for `member` of the cluster `all` (the initial cluster is only read on a member's first start). */
export function memberArgs(member: MemberSpec, all: readonly MemberSpec[], token: string): string[] {
  return [
    '--name', member.name,
    '--data-dir', member.dataDir,
    '--listen-client-urls', clientUrl(member),
    '--advertise-client-urls', clientUrl(member),
    '--listen-peer-urls', peerUrl(member),
    '--initial-advertise-peer-urls', peerUrl(member),
    '--initial-cluster', all.map((m) => `${m.name}=${peerUrl(m)}`).join(','),
    '--initial-cluster-state', 'new',
    '--initial-cluster-token', token,
    '--logger', 'zap',
    '--log-outputs', 'stderr',
    ...(member.tls ? ['--cert-file', member.tls.certFile, '--key-file', member.tls.keyFile, '--trusted-ca-file', member.tls.trustedCaFile, '--client-cert-auth'] : []),
  ];
}

/** A running etcd process. */
export interface MemberProcess {
  /** The guard shell etcd runs under (see spawnMember). */
  readonly child: ChildProcess;
  /** etcd's own pid (undefined if it never started). */
  readonly pid: Promise<number | undefined>;
  /** Resolves once it serves clients (which needs a quorum); rejects if it exits first. */
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  /** SIGTERM (etcd shuts down cleanly), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** kill -9. */
  kill(): Promise<void>;
  /** The last lines it logged, for failure messages. */
  log(): string;
}

/*
 * etcd runs under a small shell guard: the guard reads its stdin, a pipe from this process,
 * and kills etcd when it ends, so a member dies with this process however that dies (a test
 * runner's SIGKILL included). The guard says etcd's pid first; stop and kill signal etcd itself.
 */
const GUARD = [
  'exec 3<&0',
  '"$0" "$@" </dev/null &',
  'pid=$!',
  'echo "kedge-etcd-pid=$pid"',
  '( read _ <&3; kill -KILL $pid 2>/dev/null ) &',
  'guard=$!',
  'wait $pid',
  'code=$?',
  'kill $guard 2>/dev/null',
  'exit $code',
].join('\n');

/** Starts etcd with `args` under its guard. */
export function spawnMember(name: string, args: string[], clock: Clock, onLine?: (line: string) => void): MemberProcess {
  const child = spawn('sh', ['-c', GUARD, ETCD_BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = once(child, 'exit').then(() => undefined);
  const recent: string[] = [];
  let reportPid: (pid: number) => void = () => {};
  const etcdPid = new Promise<number | undefined>((resolve) => {
    reportPid = resolve;
    void exited.then(() => resolve(undefined));
  });
  const ready = new Promise<void>((resolve, reject) => {
    const seen = (line: string): void => {
      const pid = /^kedge-etcd-pid=(\d+)$/.exec(line)?.[1];
      if (pid) return reportPid(Number(pid));
      onLine?.(`[${name}] ${line}`);
      recent.push(line);
      if (recent.length > 30) recent.shift();
      if (line.includes('serving client traffic')) resolve();
    };
    createInterface({ input: child.stdout! }).on('line', seen);
    createInterface({ input: child.stderr! }).on('line', seen);
    void exited.then(() => reject(new Error(`etcd member ${name} exited before it served clients:\n${recent.join('\n')}`)));
  });
  ready.catch(() => {});
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    const pid = await etcdPid;
    if (pid !== undefined && !gone()) process.kill(pid, sig);
  };
  return {
    child,
    pid: etcdPid,
    ready,
    exited,
    async stop(graceMs = 5_000) {
      if (gone()) return;
      await signal('SIGTERM');
      const cancel = clock.setTimer(graceMs, () => void signal('SIGKILL'));
      await exited;
      cancel();
    },
    async kill() {
      if (gone()) return;
      await signal('SIGKILL');
      await exited;
    },
    log: () => recent.join('\n'),
  };
}
