/**
 * The keys a JSON text sets twice in one object, as paths in document order
 * (spec.template.spec.containers[0].imagePullPolicy): what kube's strict decoding reports as
 * `duplicate field`. JSON.parse keeps the last value silently; this scans the text once more.
 * The text must be valid JSON (parse it first). With `positions`, also where each key first
 * appears, so that problems can be reported in the order the decoder meets them.
 *
 * It runs on every JSON write that is not fieldValidation=Ignore, so it reads char codes,
 * skips string values without decoding them and decodes a key only when it has an escape.
 */
export interface KeyScan {
  /** Each key set again, with its offset in the text. */
  duplicates: { path: string; at: number }[];
  /** Where each key path first appears (empty without `positions`). */
  firstAt: Map<string, number>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export function scanKeys(text: string, opts: { positions?: boolean } = {}): KeyScan {
  const positions = opts.positions ?? false;
  // Almost no body sets a key twice: a first pass builds no paths; only one with a duplicate is scanned again for them.
  if (!positions && scan(text, false, false).duplicates.length === 0) return { duplicates: [], firstAt: new Map() };
  return scan(text, positions, true);
}

/** The scan; without `paths` each path is '' (what was found, not where). */
function scan(text: string, positions: boolean, paths: boolean): KeyScan {
  const found: { path: string; at: number }[] = [];
  const firstAt = new Map<string, number>();
  let i = 0;
  const ws = (): void => {
    while (isSpace(text.charCodeAt(i))) i++;
  };
  /** Moves past the string at `i`; whether it has an escape. */
  const skipString = (): boolean => {
    let escaped = false;
    for (i++; text.charCodeAt(i) !== QUOTE; i++) {
      if (text.charCodeAt(i) === BACKSLASH) {
        escaped = true;
        i++;
      }
    }
    i++;
    return escaped;
  };
  const key = (): string => {
    const start = i;
    return skipString() ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };
  const value = (path: string): void => {
    ws();
    const c = text.charCodeAt(i);
    if (c === OPEN_OBJECT) return object(path);
    if (c === OPEN_ARRAY) return array(path);
    if (c === QUOTE) {
      skipString();
      return;
    }
    for (let d = c; i < text.length && d !== COMMA && d !== CLOSE_ARRAY && d !== CLOSE_OBJECT && !isSpace(d); d = text.charCodeAt(++i));
  };
  const object = (path: string): void => {
    let seen: Set<string> | undefined;
    i++;
    for (ws(); text.charCodeAt(i) !== CLOSE_OBJECT; ws()) {
      if (text.charCodeAt(i) === COMMA) {
        i++;
        continue;
      }
      const offset = i;
      const name = key();
      const at = !paths ? '' : path ? `${path}.${name}` : name;
      seen ??= new Set();
      if (seen.has(name)) found.push({ path: at, at: offset });
      else seen.add(name);
      if (positions && !firstAt.has(at)) firstAt.set(at, offset);
      ws();
      i++; // ':'
      value(at);
    }
    i++;
  };
  const array = (path: string): void => {
    i++;
    for (let n = 0; ; n++) {
      ws();
      if (text.charCodeAt(i) === CLOSE_ARRAY) break;
      if (text.charCodeAt(i) === COMMA) i++;
      ws();
      if (text.charCodeAt(i) === CLOSE_ARRAY) break;
      value(paths ? `${path}[${n}]` : '');
    }
    i++;
  };
  value('');
  return { duplicates: found, firstAt };
}
