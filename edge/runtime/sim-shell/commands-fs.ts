import type { Stats } from 'node:fs';
import { posix } from 'node:path';
import { absolute, type Builtin, type ShellContext, splitOptions } from './shell-context.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function modeString(info: Stats): string {
  const bits = ['r', 'w', 'x'];
  let out = info.isDirectory() ? 'd' : '-';
  for (let i = 8; i >= 0; i--) out += info.mode & (1 << i) ? bits[(8 - i) % 3] : '-';
  return out;
}

/** One `ls -l` line, in GNU ls's shape (owner root: the container's user). */
function longLine(name: string, info: Stats): string {
  const t = info.mtime;
  const when = `${MONTHS[t.getUTCMonth()]} ${String(t.getUTCDate()).padStart(2)} ${String(t.getUTCHours()).padStart(2, '0')}:${String(t.getUTCMinutes()).padStart(2, '0')}`;
  return `${modeString(info)} 1 root root ${String(info.size).padStart(8)} ${when} ${name}\n`;
}

async function listOne(sh: ShellContext, operand: string, long: boolean, all: boolean): Promise<string | undefined> {
  const path = absolute(sh, operand);
  const info = await sh.fs.stat(path);
  if (!info) return undefined;
  if (!info.isDirectory()) return long ? longLine(operand, info) : `${operand}\n`;
  const names = (await sh.fs.list(path)).filter((n) => all || !n.startsWith('.'));
  if (!long) return names.map((n) => `${n}\n`).join('');
  const lines = await Promise.all(names.map(async (n) => longLine(n, (await sh.fs.stat(posix.join(path, n)))!)));
  return `total ${names.length}\n${lines.join('')}`;
}

const ls: Builtin = async (args, sh) => {
  const { flags, operands } = splitOptions(args);
  const targets = operands.length ? operands : ['.'];
  let code = 0;
  for (const operand of targets) {
    const listing = await listOne(sh, operand, flags.has('l'), flags.has('a'));
    if (listing === undefined) {
      await sh.io.err(`ls: cannot access '${operand}': No such file or directory\n`);
      code = 2;
      continue;
    }
    await sh.io.out(targets.length > 1 ? `${operand}:\n${listing}` : listing);
  }
  return code;
};

const cat: Builtin = async (args, sh) => {
  if (args.length === 0 || (args.length === 1 && args[0] === '-')) {
    for await (const chunk of sh.io.input()) await sh.io.out(chunk);
    return 0;
  }
  let code = 0;
  for (const operand of args) {
    try {
      await sh.io.out(await sh.fs.read(absolute(sh, operand)));
    } catch (err) {
      await sh.io.err(`cat: ${operand}: ${(err as Error).message}\n`);
      code = 1;
    }
  }
  return code;
};

const cd: Builtin = async (args, sh) => {
  const path = absolute(sh, args[0] ?? sh.env.HOME ?? '/');
  if (!(await sh.fs.stat(path))?.isDirectory()) {
    await sh.io.err(`sh: cd: can't cd to ${args[0]}\n`);
    return 2;
  }
  sh.cwd = path;
  return 0;
};

export const FS_COMMANDS: Record<string, Builtin> = { ls, cat, cd };
