/**
 * What a simulated container's command would do, as a real container would run it
 * (docs/runtime-sim.md): `sleep N` runs N seconds, `true`/`echo`/`printf`/`date`/`exit 0` end
 * at once with 0, `false`/`exit N` with 1/N, `sh -c "<script>"` is judged by its last simple
 * command after the sleeps before it; an image's default command comes from a small table of
 * well-known images (their shells and interpreters end at once without stdin or a tty).
 * Anything else runs until stopped. Pure.
 */

/** How the command ends: after `afterMs` (cluster time, unscaled) with `exitCode`; undefined: it runs until stopped. */
export interface CommandEnd {
  afterMs: number;
  exitCode: number;
}

export interface CommandInput {
  image?: string;
  command?: string[];
  args?: string[];
  stdin?: boolean;
  tty?: boolean;
}

/** Default command (Docker CMD) of well-known images; none of them has an ENTRYPOINT. */
const IMAGE_DEFAULTS: Record<string, string[]> = {
  busybox: ['sh'], alpine: ['/bin/sh'], ubuntu: ['bash'], debian: ['bash'],
  python: ['python3'], perl: ['perl'], node: ['node'], ruby: ['irb'],
};

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);
/** Interpreters and the flags that hand them code inline. */
const INLINE_CODE: Record<string, RegExp> = {
  python: /^-c$/, python3: /^-c$/, perl: /^-[a-zA-Z]*[eE]$/, node: /^-(e|p|-eval|-print)$/, irb: /^-e$/,
};

/** Repository and tag stripped: "docker.io/library/busybox:1.36" → "busybox". */
export function imageName(image: string | undefined): string {
  const last = (image ?? '').split('/').pop() ?? '';
  return last.split('@')[0]!.split(':')[0]!;
}

export function commandEnd(input: CommandInput): CommandEnd | undefined {
  const defaults = IMAGE_DEFAULTS[imageName(input.image)];
  const words = input.command ? [...input.command, ...(input.args ?? [])] : input.args?.length ? input.args : defaults;
  if (!words?.length) return undefined;
  const interactive = input.stdin === true || input.tty === true;
  return wordsEnd(words, interactive);
}

function wordsEnd(words: string[], interactive: boolean): CommandEnd | undefined {
  const program = base(words[0]!);
  const rest = words.slice(1);
  if (SHELLS.has(program)) {
    const c = rest.findIndex((w) => /^-[a-z]*c[a-z]*$/.test(w));
    if (c >= 0) return rest[c + 1] === undefined ? undefined : scriptEnd(rest[c + 1]!);
    if (rest.length === 0) return interactive ? undefined : { afterMs: 0, exitCode: 0 };
    return undefined;
  }
  const inline = INLINE_CODE[program];
  if (inline) {
    if (rest.length === 0) return interactive ? undefined : { afterMs: 0, exitCode: 0 };
    return rest.some((w) => inline.test(w)) ? { afterMs: 0, exitCode: 0 } : undefined;
  }
  return simpleEnd(words);
}

const base = (path: string): string => path.split('/').pop() ?? path;

/** A script: its sleeps add up, its last simple command decides how it ends; a loop never ends. */
function scriptEnd(script: string): CommandEnd | undefined {
  if (/(^|[\s;&|(])(while|until|for)\s/.test(script)) return undefined;
  const commands = script.split(/\n|;|&&|\|\||\|/).map((c) => c.trim()).filter((c) => c !== '');
  if (commands.length === 0) return { afterMs: 0, exitCode: 0 };
  let afterMs = 0;
  for (const command of commands.slice(0, -1)) {
    const words = splitWords(command);
    if (base(words[0] ?? '') !== 'sleep') continue;
    const end = simpleEnd(words);
    if (!end) return undefined;
    afterMs += end.afterMs;
  }
  const last = simpleEnd(splitWords(commands[commands.length - 1]!));
  return last && { afterMs: afterMs + last.afterMs, exitCode: last.exitCode };
}

/** Words of one simple command, quotes removed (no expansion); a leading `exec` is dropped. */
function splitWords(command: string): string[] {
  const words = [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  return words[0] === 'exec' ? words.slice(1) : words;
}

const INSTANT = new Set(['true', ':', 'echo', 'printf', 'date', 'env', 'hostname', 'uname', 'pwd', 'ls', 'cat', 'id', 'whoami', 'test', '[']);

function simpleEnd(words: string[]): CommandEnd | undefined {
  const program = base(words[0] ?? '');
  if (INSTANT.has(program)) return { afterMs: 0, exitCode: 0 };
  if (program === 'false') return { afterMs: 0, exitCode: 1 };
  if (program === 'exit') {
    const code = words[1] === undefined ? 0 : Number(words[1]);
    return Number.isInteger(code) ? { afterMs: 0, exitCode: ((code % 256) + 256) % 256 } : undefined;
  }
  if (program === 'sleep') return sleepEnd(words.slice(1));
  return undefined;
}

const SLEEP_UNITS: Record<string, number> = { '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `sleep 5`, `sleep 1.5m`, `sleep 1 2` (they add up); `sleep infinity` never ends. */
function sleepEnd(args: string[]): CommandEnd | undefined {
  if (args.length === 0) return { afterMs: 0, exitCode: 1 };
  let ms = 0;
  for (const arg of args) {
    const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(arg);
    if (!m) return arg === 'infinity' || arg === 'inf' ? undefined : { afterMs: 0, exitCode: 1 };
    ms += Number(m[1]) * SLEEP_UNITS[m[2]!]!;
  }
  return { afterMs: Math.round(ms), exitCode: 0 };
}
