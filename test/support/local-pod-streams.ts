import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { StreamEnd, StreamRequest } from '../../shared/protocol/streams.js';
import { STDERR, STDIN, STDOUT } from '../../shared/protocol/streams.js';
import type { Pod } from '../../shared/types.js';
import type { PodStream, PodStreams, StreamChunk } from '../../cloud/apiserver/subresources/pod-streams.js';

/**
 * PodStreams for tests, standing in for the hub: an exec runs the command as a real local
 * process in `dir` (so `kubectl cp`'s tar works), a port-forward connects to the local port
 * `ports` maps the pod's port to. `refuse` makes open reject (a node away, say).
 */
export class LocalPodStreams implements PodStreams {
  readonly opened: StreamRequest[] = [];
  refuse: Error | undefined;
  /** What an attach reaches: this command, run afresh for each attach. */
  attached: string[] = ['cat'];
  private readonly children = new Set<ChildProcess>();
  private readonly sockets = new Set<Socket>();

  constructor(private readonly dir: string, private readonly ports: Record<number, number> = {}) {}

  async open(_pod: Pod, request: StreamRequest): Promise<PodStream> {
    if (this.refuse) throw this.refuse;
    this.opened.push(request);
    if (request.kind === 'exec') return this.exec(request.command, request.stdin);
    if (request.kind === 'portforward') return this.forward(request.port);
    return this.exec(this.attached, request.stdin); // the container's main process, as a fresh one
  }

  /** Kills every process and closes every socket still open. */
  close(): void {
    for (const child of this.children) child.kill('SIGKILL');
    for (const socket of this.sockets) socket.destroy();
  }

  private exec(command: string[], stdin: boolean): PodStream {
    const child = spawn(command[0]!, command.slice(1), { cwd: this.dir, stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    this.children.add(child);
    const exited = new Promise<StreamEnd>((resolve) => {
      child.once('error', (err) => resolve({ error: err.message, reason: 'BadRequest' }));
      child.once('close', (code) => resolve({ exitCode: code ?? 137 }));
    }).finally(() => this.children.delete(child));
    const queue = new ChunkQueue([[child.stdout!, STDOUT], [child.stderr!, STDERR]], exited);
    return queue.stream(
      (data) => new Promise<void>((resolve, reject) => child.stdin?.write(data, (err) => (err ? reject(err) : resolve()))),
      () => child.stdin?.end(),
      () => child.kill('SIGKILL'),
    );
  }

  private forward(port: number): PodStream {
    const socket = connect(this.ports[port] ?? 1, '127.0.0.1');
    this.sockets.add(socket);
    const ended = new Promise<StreamEnd>((resolve) => {
      socket.once('error', (err) => resolve({ error: err.message, reason: 'InternalError' }));
      socket.once('close', () => resolve({ exitCode: 0 }));
    }).finally(() => this.sockets.delete(socket));
    const queue = new ChunkQueue([[socket, STDOUT]], ended);
    return queue.stream(
      (data) => new Promise<void>((resolve, reject) => socket.write(data, (err) => (err ? reject(err) : resolve()))),
      () => socket.end(),
      () => socket.destroy(),
    );
  }
}

/** Output pulled in order from some readables; each pauses while more than a little waits unread. */
class ChunkQueue {
  private readonly chunks: StreamChunk[] = [];
  private wake: (() => void) | undefined;
  private open: number;

  constructor(private readonly sources: [Readable, number][], private readonly ended: Promise<StreamEnd>) {
    this.open = sources.length;
    for (const [source, channel] of sources) {
      source.on('data', (data: Buffer) => {
        this.chunks.push({ channel, data });
        if (this.chunks.length > 8) source.pause();
        this.poke();
      });
      source.once('close', () => {
        this.open--;
        this.poke();
      });
    }
  }

  stream(write: (data: Buffer) => Promise<void>, closeInput: () => void, kill: () => void): PodStream {
    return {
      read: () => this.read(),
      write: (channel, data) => (channel === STDIN ? write(data) : Promise.resolve()),
      closeInput,
      resize: () => {},
      ended: this.ended,
      cancel: kill,
    };
  }

  private poke(): void {
    this.wake?.();
    this.wake = undefined;
  }

  private async read(): Promise<StreamChunk | undefined> {
    while (this.chunks.length === 0 && this.open > 0) await new Promise<void>((resolve) => (this.wake = resolve));
    const next = this.chunks.shift();
    if (this.chunks.length <= 8) for (const [source] of this.sources) source.resume();
    if (next) return next;
    await this.ended;
    return undefined;
  }
}
