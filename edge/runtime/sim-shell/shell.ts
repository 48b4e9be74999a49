import { posix } from 'node:path';
import { BASIC_COMMANDS } from './commands-basic.js';
import { FS_COMMANDS } from './commands-fs.js';
import { expandWords, parseScript, ScriptError } from './script.js';
import { type Builtin, type ShellContext, ShellExit } from './shell-context.js';
import { TAR_COMMANDS } from './tar-command.js';

const COMMANDS: Record<string, Builtin> = { ...BASIC_COMMANDS, ...FS_COMMANDS, ...TAR_COMMANDS };
export const SHELLS: ReadonlySet<string> = new Set(['sh', 'bash', 'ash', 'dash']);

/** The names the simulated shell knows (docs/runtime-sim.md). */
export const SIMULATED_COMMANDS: readonly string[] = [...Object.keys(COMMANDS), ...SHELLS].sort();

/** Runs a script's steps in order; `exit` ends it (ShellExit goes up to whoever runs the shell). */
export async function runScript(src: string, sh: ShellContext, status = 0): Promise<number> {
  let steps;
  try {
    steps = parseScript(src);
  } catch (err) {
    if (!(err instanceof ScriptError)) throw err;
    await sh.io.err(`sh: ${err.message}\n`);
    return 2;
  }
  for (const step of steps) {
    if ((step.after === '&&' && status !== 0) || (step.after === '||' && status === 0)) continue;
    const words = expandWords(step.words, (name) => (name === '?' ? String(status) : name === '$' ? '1' : sh.env[name]));
    status = await runCommand(words, sh);
  }
  return status;
}

/** `sh -c '…'` runs its script (its `exit` ends only it); `sh` alone reads nothing more here. */
async function runShell(args: string[], sh: ShellContext): Promise<number> {
  const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
  if (c < 0) return 0;
  try {
    return await runScript(args[c + 1] ?? '', sh);
  } catch (err) {
    if (err instanceof ShellExit) return err.code;
    throw err;
  }
}

/** One simple command, by its program's base name (`/bin/ls` is `ls`). */
export async function runCommand(words: string[], sh: ShellContext): Promise<number> {
  if (words.length === 0) return 0;
  const program = posix.basename(words[0]!);
  if (SHELLS.has(program)) return runShell(words.slice(1), sh);
  const builtin = COMMANDS[program];
  if (builtin) return builtin(words.slice(1), sh);
  await sh.io.err(`sh: ${words[0]}: not found\n`);
  return 127;
}

/** A shell reading commands from its stdin, a line at a time, with a `# ` prompt on a terminal; `exit` or the end of input ends it. */
export async function interactiveShell(sh: ShellContext, lines: AsyncIterable<string>, prompt: boolean): Promise<number> {
  const quiet: ShellContext = { ...sh, io: { ...sh.io, input: async function* () {} } };
  let status = 0;
  if (prompt) await sh.io.out('# ');
  for await (const line of lines) {
    if (line.trim()) status = await runScript(line, quiet, status);
    sh.cwd = quiet.cwd;
    if (prompt) await sh.io.out('# ');
  }
  return status;
}
