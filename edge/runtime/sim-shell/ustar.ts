/**
 * Tar archives in the POSIX ustar format, as `tar cf -` writes and `tar xf -` reads them
 * (kubectl cp is exec of tar). Reads GNU long names (`L`) and pax `path` records too, as GNU
 * tar and Go's archive/tar write them for names past 100 bytes. Pure.
 */

export const BLOCK = 512;

export interface TarEntry {
  /** Relative, without a trailing slash. */
  name: string;
  type: 'file' | 'directory';
  mode: number;
  mtime: number;
  /** A file's bytes. */
  data?: Buffer;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, typeflag: string, entry: Pick<TarEntry, 'mode' | 'mtime'>): Buffer {
  const block = Buffer.alloc(BLOCK);
  const put = (text: string, offset: number, width: number): void => void block.write(text, offset, width, 'utf8');
  const bytes = Buffer.byteLength(name);
  const cut = bytes > 100 ? name.lastIndexOf('/', 155) : -1;
  const [prefix, rest] = cut > 0 && Buffer.byteLength(name.slice(cut + 1)) <= 100 ? [name.slice(0, cut), name.slice(cut + 1)] : ['', name];
  put(rest, 0, 100);
  put(octal(entry.mode & 0o7777, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(Math.floor(entry.mtime / 1000), 12), 136, 12);
  put('        ', 148, 8);
  put(typeflag, 156, 1);
  put('ustar\u000000', 257, 8);
  put('root', 265, 32);
  put('root', 297, 32);
  put(prefix, 345, 155);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return block;
}

const padding = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** One entry's blocks: a GNU long-name entry first when its name does not fit in the header. */
export function encodeEntry(entry: TarEntry): Buffer {
  const name = entry.type === 'directory' ? `${entry.name}/` : entry.name;
  const data = entry.data ?? Buffer.alloc(0);
  const parts: Buffer[] = [];
  const fits = Buffer.byteLength(name) <= 100 || (name.lastIndexOf('/', 155) > 0 && Buffer.byteLength(name.slice(name.lastIndexOf('/', 155) + 1)) <= 100);
  if (!fits) {
    const long = Buffer.from(`${name}\0`);
    parts.push(header('././@LongLink', long.length, 'L', entry), long, padding(long.length));
  }
  parts.push(header(fits ? name : name.slice(0, 100), data.length, entry.type === 'directory' ? '5' : '0', entry), data, padding(data.length));
  return Buffer.concat(parts);
}

/** The end of an archive: two zero blocks. */
export const END_OF_ARCHIVE = Buffer.alloc(2 * BLOCK);

const text = (block: Buffer, offset: number, width: number): string => {
  const raw = block.subarray(offset, offset + width);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? width : end).toString('utf8');
};
const number = (block: Buffer, offset: number, width: number): number => parseInt(text(block, offset, width).trim() || '0', 8);

function paxPath(data: Buffer): string | undefined {
  for (const record of data.toString('utf8').split('\n')) {
    const match = /^\d+ path=(.*)$/.exec(record);
    if (match) return match[1];
  }
  return undefined;
}

/** The entries of an archive, in order; throws on a damaged one. Links and devices are skipped. */
export function decodeArchive(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let longName: string | undefined;
  for (let at = 0; at + BLOCK <= archive.length; ) {
    const block = archive.subarray(at, at + BLOCK);
    if (block.every((b) => b === 0)) break;
    if (!text(block, 257, 6).startsWith('ustar')) throw new Error('This does not look like a tar archive');
    const size = number(block, 124, 12);
    const data = archive.subarray(at + BLOCK, at + BLOCK + size);
    if (data.length < size) throw new Error('Unexpected EOF in archive');
    at += BLOCK + size + padding(size).length;
    const typeflag = text(block, 156, 1) || '0';
    if (typeflag === 'L' || typeflag === 'x') {
      longName = typeflag === 'L' ? text(data, 0, data.length) : (paxPath(data) ?? longName);
      continue;
    }
    const prefix = text(block, 345, 155);
    const name = (longName ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100))).replace(/\/+$/, '');
    longName = undefined;
    const common = { name, mode: number(block, 100, 8), mtime: number(block, 136, 12) * 1000 };
    if (typeflag === '5') entries.push({ ...common, type: 'directory' });
    else if (typeflag === '0' || typeflag === '7') entries.push({ ...common, type: 'file', data: Buffer.from(data) });
  }
  return entries;
}
