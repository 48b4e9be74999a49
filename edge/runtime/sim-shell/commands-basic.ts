import { absolute, type Builtin, ShellExit, splitOptions } from './shell-context.js';

const echo: Builtin = async (args, sh) => {
  const noNewline = args[0] === '-n';
  await sh.io.out(`${(noNewline ? args.slice(1) : args).join(' ')}${noNewline ? '' : '\n'}`);
  return 0;
};

const env: Builtin = async (_args, sh) => {
  await sh.io.out(Object.entries(sh.env).map(([k, v]) => `${k}=${v}\n`).join(''));
  return 0;
};

const exit: Builtin = async (args) => {
  const code = args[0] === undefined ? 0 : Number(args[0]);
  throw new ShellExit(Number.isInteger(code) ? code & 0xff : 2);
};

const sleep: Builtin = async (args, sh) => {
  const seconds = Number(args[0]);
  if (!Number.isFinite(seconds) || seconds < 0) {
    await sh.io.err(`sleep: invalid time interval '${args[0] ?? ''}'\n`);
    return 1;
  }
  await sh.clock.sleep(seconds * 1000, sh.signal).catch(() => undefined);
  return 0;
};

/** `test` and `[`: -d -e -f -z -n, = and !=, and ! before any of them. */
function testOf(args: string[]): boolean | undefined {
  if (args[0] === '!') {
    const inner = testOf(args.slice(1));
    return inner === undefined ? undefined : !inner;
  }
  const [a, b, c] = args;
  if (args.length === 0) return false;
  if (args.length === 1) return a !== '';
  if (args.length === 2 && a === '-z') return b === '';
  if (args.length === 2 && a === '-n') return b !== '';
  if (args.length === 3 && b === '=') return a === c;
  if (args.length === 3 && b === '!=') return a !== c;
  return undefined;
}

async function fileTest(flag: string, path: string, sh: Parameters<Builtin>[1]): Promise<boolean> {
  const info = await sh.fs.stat(absolute(sh, path));
  if (flag === '-d') return info?.isDirectory() ?? false;
  if (flag === '-f') return info?.isFile() ?? false;
  return info !== undefined;
}

const test: Builtin = async (args, sh) => {
  const negate = args[0] === '!';
  const rest = negate ? args.slice(1) : args;
  if (rest.length === 2 && ['-d', '-e', '-f'].includes(rest[0]!)) return (await fileTest(rest[0]!, rest[1]!, sh)) !== negate ? 0 : 1;
  const result = testOf(args);
  if (result === undefined) {
    await sh.io.err(`sh: test: unknown operand\n`);
    return 2;
  }
  return result ? 0 : 1;
};

const bracket: Builtin = async (args, sh) => {
  if (args[args.length - 1] !== ']') {
    await sh.io.err(`sh: [: missing ]\n`);
    return 2;
  }
  return test(args.slice(0, -1), sh);
};

const hostname: Builtin = async (_args, sh) => (await sh.io.out(`${sh.hostname}\n`), 0);
const pwd: Builtin = async (_args, sh) => (await sh.io.out(`${sh.cwd}\n`), 0);

const mkdir: Builtin = async (args, sh) => {
  const { flags, operands } = splitOptions(args);
  let code = 0;
  for (const path of operands) {
    try {
      await sh.fs.mkdir(absolute(sh, path), flags.has('p'));
    } catch (err) {
      await sh.io.err(`mkdir: cannot create directory '${path}': ${(err as Error).message}\n`);
      code = 1;
    }
  }
  return code;
};

export const BASIC_COMMANDS: Record<string, Builtin> = {
  echo, env, exit, sleep, test, '[': bracket, hostname, pwd, mkdir,
  true: async () => 0,
  false: async () => 1,
};
