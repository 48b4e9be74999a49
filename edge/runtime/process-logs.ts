import { readFile } from 'node:fs/promises';
import type { LogLine } from './runtime.js';

/**
 * The shim that runs between the edge and a container process, as containerd's shim does:
 * it owns the container's stdout and stderr, so output keeps flowing to the log file while
 * the edge process is down. Each line goes out as "<ms since epoch> <stream> <text>"; past
 * `maxBytes` the file moves to "<file>.1" (one old file kept). When the container ends, the
 * shim records its exit code in the exit file and exits with the same code. SIGTERM is for
 * the container (the whole process group gets it): the shim waits for the container instead.
 * It runs the container only once the edge says "go" on its stdin, which the edge does after
 * writing the shim's pid down: a shim whose edge died before that (its stdin ends) runs
 * nothing and exits. Let go, it writes its pid, start time and the machine's boot id to the pid
 * file (the container ran, and which process group holds it, in which boot), starts the container and says "up" on its stdout;
 * the edge waits for that before a stop can come. The edge may be gone by then: a closed pipe,
 * like a full disk under the log, is no reason to die and leave the container unwatched.
 * A container created with stdin gets a FIFO (stdinPath, made by the edge) as its stdin, which the
 * shim holds open for reading and writing: attach writes to it, and the container never sees an
 * end of file (kube's stdinOnce: false). argv: logPath exitPath pidPath maxBytes stdinPath ('' for
 * none) command [args...]. Plain JavaScript run with `node -e`.
 */
export const LOG_SHIM_SOURCE = String.raw`
const fs = require('node:fs');
const os = require('node:os');
const { dirname } = require('node:path');
const { spawn } = require('node:child_process');
const [logPath, exitPath, pidPath, maxText, stdinPath, command, ...args] = process.argv.slice(1);
const maxBytes = Number(maxText);
let size = 0;
let fd;
function write(stream, text) {
  const buf = Buffer.from(Date.now() + ' ' + stream + ' ' + text + '\n');
  try {
    if (size > 0 && size + buf.length > maxBytes) {
      fs.closeSync(fd);
      fs.renameSync(logPath, logPath + '.1');
      fd = fs.openSync(logPath, 'a', 0o600);
      size = 0;
    }
    fs.writeSync(fd, buf);
    size += buf.length;
  } catch {} // a line lost, the container still watched
}
function pump(input, stream) {
  let rest = '';
  input.setEncoding('utf8');
  input.on('data', (chunk) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop();
    for (const part of parts) write(stream, part);
  });
  input.on('end', () => { if (rest) write(stream, rest); });
}
// Durably (temp file, fsync, rename, fsync of the directory): after an edge restart, it decides the restart.
function writeExit(text) {
  const tmp = exitPath + '.tmp';
  const out = fs.openSync(tmp, 'w', 0o600);
  fs.writeSync(out, text);
  fs.fsyncSync(out);
  fs.closeSync(out);
  fs.renameSync(tmp, exitPath);
  const dir = fs.openSync(dirname(exitPath), 'r');
  fs.fsyncSync(dir);
  fs.closeSync(dir);
}
let ended = false;
function end(exitCode, reason) {
  if (ended) return;
  ended = true;
  try { writeExit(JSON.stringify({ exitCode, reason })); } catch {}
  process.exit(exitCode);
}
function startTime() {
  // /proc/self/stat field 22, counted after the command name in parentheses (as proc-stat.ts reads it).
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}
function bootId() {
  try { return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined; } catch { return undefined; }
}
function run() {
  try { size = fs.statSync(logPath).size; } catch {}
  fd = fs.openSync(logPath, 'a', 0o600);
  fs.writeFileSync(pidPath, JSON.stringify({ pid: process.pid, startTime: startTime(), bootId: bootId() }), { mode: 0o600 });
  let input = 'ignore';
  try { if (stdinPath) input = fs.openSync(stdinPath, 'r+'); } catch {}
  const child = spawn(command, args, { stdio: [input, 'pipe', 'pipe'] });
  process.stdout.end('up\n'); // the edge waits for this: from now on SIGTERM reaches the container
  child.on('error', (err) => { write('stderr', '[kedge] cannot run ' + command + ': ' + err.message); end(127, 'ContainerCannotRun'); });
  pump(child.stdout, 'stdout');
  pump(child.stderr, 'stderr');
  child.on('close', (code, signal) => {
    const exitCode = code ?? 128 + (os.constants.signals[signal] ?? 0);
    end(exitCode, exitCode === 0 ? 'Completed' : 'Error');
  });
}
process.on('SIGTERM', () => {});
process.stdout.on('error', () => {});
let told = '';
let released = false;
process.stdin.setEncoding('utf8');
process.stdin.on('error', () => {});
process.stdin.on('data', (chunk) => {
  told += chunk;
  if (released || !told.includes('go\n')) return;
  released = true;
  process.stdin.destroy();
  run();
});
process.stdin.on('end', () => { if (!released) process.exit(0); });
`;

/** Reads the rotated file, then the current one: every line the shim wrote, oldest first. */
export async function readLogLines(logPath: string): Promise<LogLine[]> {
  const lines: LogLine[] = [];
  for (const path of [`${logPath}.1`, logPath]) {
    for (const raw of (await readOptional(path)).split('\n')) {
      const match = /^(\d+) (?:stdout|stderr) (.*)$/.exec(raw);
      if (match) lines.push({ time: Number(match[1]), text: match[2]! });
    }
  }
  return lines;
}

async function readOptional(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}
