/**
 * The keys a JSON text sets twice in one object, as paths in document order
 * (spec.template.spec.containers[0].imagePullPolicy): what kube's strict decoding reports as
 * `duplicate field`. JSON.parse keeps the last value silently; this scans the text once more.
 * The text must be valid JSON (parse it first). Also where each key first appears, so that
 * problems can be reported in the order the decoder meets them.
 */
export interface KeyScan {
  /** Each key set again, with its offset in the text. */
  duplicates: { path: string; at: number }[];
  /** Where each key path first appears. */
  firstAt: Map<string, number>;
}

export function scanKeys(text: string): KeyScan {
  const found: { path: string; at: number }[] = [];
  const firstAt = new Map<string, number>();
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') return object(path);
    if (c === '[') return array(path);
    if (c === '"') {
      string();
      return;
    }
    while (i < text.length && !',]} \t\r\n'.includes(text[i]!)) i++;
  };
  const object = (path: string): void => {
    const seen = new Set<string>();
    i++;
    for (ws(); text[i] !== '}'; ws()) {
      if (text[i] === ',') {
        i++;
        continue;
      }
      const offset = i;
      const key = string();
      const at = path ? `${path}.${key}` : key;
      if (seen.has(key)) found.push({ path: at, at: offset });
      if (!firstAt.has(at)) firstAt.set(at, offset);
      seen.add(key);
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
      if (text[i] === ']') break;
      if (text[i] === ',') i++;
      ws();
      if (text[i] === ']') break;
      value(`${path}[${n}]`);
    }
    i++;
  };
  value('');
  return { duplicates: found, firstAt };
}
