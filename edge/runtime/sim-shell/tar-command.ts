import { posix } from 'node:path';
import { absolute, type Builtin, type ShellContext } from './shell-context.js';
import { BLOCK, decodeArchive, encodeEntry, END_OF_ARCHIVE } from './ustar.js';

/** GNU tar writes whole records of 20 blocks. */
const RECORD = 20 * BLOCK;
/** The most a simulated `tar x` takes from stdin. */
export const TAR_INPUT_LIMIT_BYTES = 128 * 1024 * 1024;

interface TarArgs {
  mode: 'c' | 'x';
  archive?: string;
  dir?: string;
  paths: string[];
}

/** `tar cf - p`, `tar -xmf - -C dir`, `tar xf -`: bundled letters (with or without a dash), -C, long options ignored. */
function parseTarArgs(args: string[]): TarArgs | string {
  let mode: 'c' | 'x' | undefined;
  let archive: string | undefined;
  let dir: string | undefined;
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-C') dir = args[++i];
    else if (arg.startsWith('--')) continue; // --no-same-permissions, --no-same-owner
    else if ((i === 0 && /^[a-zA-Z]+$/.test(arg)) || /^-[a-zA-Z]+$/.test(arg)) {
      for (const letter of arg.replace(/^-/, '')) {
        if (letter === 'c' || letter === 'x') mode = letter;
        else if (letter === 'f') archive = args[++i];
        else if (!'mvpo'.includes(letter)) return `tar: option -${letter} is not simulated`;
      }
    } else paths.push(arg);
  }
  if (!mode) return "tar: You must specify one of the '-ctx' options";
  if (archive !== '-') return 'tar: only an archive on stdin or stdout (f -) is simulated';
  return { mode, archive, dir, paths };
}

async function createArchive(sh: ShellContext, operands: string[]): Promise<number> {
  let written = 0;
  let code = 0;
  const emit = async (bytes: Buffer): Promise<void> => {
    written += bytes.length;
    await sh.io.out(bytes);
  };
  const add = async (path: string, name: string): Promise<void> => {
    const info = await sh.fs.stat(path);
    if (!info) {
      await sh.io.err(`tar: ${name}: Cannot stat: No such file or directory\n`);
      code = 2;
      return;
    }
    const common = { name, mode: info.mode, mtime: info.mtimeMs };
    if (!info.isDirectory()) return emit(encodeEntry({ ...common, type: 'file', data: await sh.fs.read(path) }));
    await emit(encodeEntry({ ...common, type: 'directory' }));
    for (const child of await sh.fs.list(path)) await add(posix.join(path, child), `${name}/${child}`);
  };
  if (operands.some((p) => p.startsWith('/'))) await sh.io.err("tar: Removing leading `/' from member names\n");
  for (const operand of operands) await add(absolute(sh, operand), operand.replace(/^\/+/, '').replace(/\/+$/, '') || '.');
  await emit(END_OF_ARCHIVE);
  await sh.io.out(Buffer.alloc((RECORD - (written % RECORD)) % RECORD));
  return code;
}

async function readInput(sh: ShellContext): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of sh.io.input()) {
    size += chunk.length;
    if (size > TAR_INPUT_LIMIT_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function extractArchive(sh: ShellContext, dir: string): Promise<number> {
  const input = await readInput(sh);
  if (!input) return (await sh.io.err('tar: archive too large for a simulated container\n'), 2);
  if (input.length === 0) return (await sh.io.err('tar: This does not look like a tar archive\n'), 2);
  let code = 0;
  try {
    for (const entry of decodeArchive(input)) {
      const name = entry.name.replace(/^\/+/, '');
      if (name.split('/').includes('..')) {
        await sh.io.err(`tar: ${name}: Member name contains '..'\n`);
        code = 2;
        continue;
      }
      const target = posix.join(dir, name);
      try {
        if (entry.type === 'directory') await sh.fs.mkdir(target, true);
        else await sh.fs.write(target, entry.data!);
      } catch (err) {
        await sh.io.err(`tar: ${name}: Cannot open: ${(err as Error).message}\n`);
        code = 2;
      }
    }
  } catch (err) {
    await sh.io.err(`tar: ${(err as Error).message}\n`);
    return 2;
  }
  return code;
}

const tar: Builtin = async (args, sh) => {
  const parsed = parseTarArgs(args);
  if (typeof parsed === 'string') return (await sh.io.err(`${parsed}\n`), 2);
  if (parsed.mode === 'c') return createArchive(sh, parsed.paths);
  const dir = absolute(sh, parsed.dir ?? '.');
  if (!(await sh.fs.stat(dir))?.isDirectory()) return (await sh.io.err(`tar: ${parsed.dir}: Cannot open: No such file or directory\n`), 2);
  return extractArchive(sh, dir);
};

export const TAR_COMMANDS: Record<string, Builtin> = { tar };
