/**
 * The simulated shell's grammar (docs/runtime-sim.md): words with '…' and "…" quoting, `\`
 * escapes, `$VAR`, `${VAR}` and `$?`, `#` comments, and simple commands joined by `;`, newlines,
 * `&&` and `||`. Pipes, redirections and background jobs are not simulated. Pure.
 */

/** A piece of a word: literal text, or a variable expanded when the command runs. */
export type WordPart = { text: string } | { variable: string };
export type Word = WordPart[];
export type Connector = ';' | '&&' | '||';

export interface Step {
  /** How it follows the step before: always, only after a success, only after a failure. */
  after: Connector;
  words: Word[];
}

export class ScriptError extends Error {}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

class Lexer {
  private i = 0;
  readonly steps: Step[] = [];
  private words: Word[] = [];
  private word: Word | undefined;
  private after: Connector = ';';

  constructor(private readonly src: string) {}

  run(): Step[] {
    while (this.i < this.src.length) this.next();
    this.endWord(0);
    this.endStep(';');
    return this.steps;
  }

  private next(): void {
    const c = this.src[this.i]!;
    const two = this.src.slice(this.i, this.i + 2);
    if (two === '&&' || two === '||') return this.separator(two, 2);
    if (c === ';' || c === '\n') return this.separator(';', 1);
    if (c === ' ' || c === '\t') return this.endWord(1);
    if (c === '#' && !this.word) return this.comment();
    if ('|&<>()`'.includes(c)) throw new ScriptError(`syntax not simulated: "${c}"`);
    if (c === "'") return this.singleQuoted();
    if (c === '"') return this.doubleQuoted();
    if (c === '\\') return this.literal(this.src[this.i + 1] ?? '', 2);
    if (c === '$') return this.variable();
    this.literal(c, 1);
  }

  private separator(next: Connector, length: number): void {
    this.endWord(length);
    this.endStep(next);
  }

  private endWord(length: number): void {
    this.i += length;
    if (this.word) this.words.push(this.word);
    this.word = undefined;
  }

  private endStep(next: Connector): void {
    if (this.words.length) this.steps.push({ after: this.after, words: this.words });
    else if (next !== ';') throw new ScriptError(`syntax error near unexpected token \`${next}'`);
    this.words = [];
    this.after = next;
  }

  private comment(): void {
    while (this.i < this.src.length && this.src[this.i] !== '\n') this.i++;
  }

  private literal(text: string, length: number): void {
    this.i += length;
    (this.word ??= []).push({ text });
  }

  private singleQuoted(): void {
    const end = this.src.indexOf("'", this.i + 1);
    if (end < 0) throw new ScriptError('unterminated quoted string');
    this.literal(this.src.slice(this.i + 1, end), end - this.i + 1);
  }

  private doubleQuoted(): void {
    this.literal('', 1); // "" is a word of its own
    for (;;) {
      const c = this.src[this.i];
      if (c === undefined) throw new ScriptError('unterminated quoted string');
      if (c === '"') return void this.i++;
      if (c === '\\' && '"\\$`'.includes(this.src[this.i + 1] ?? '')) this.literal(this.src[this.i + 1]!, 2);
      else if (c === '$') this.variable();
      else this.literal(c, 1);
    }
  }

  private variable(): void {
    const rest = this.src.slice(this.i + 1);
    const braced = /^\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(rest);
    const name = braced ? braced[1]! : rest[0] === '?' || rest[0] === '$' ? rest[0] : NAME.exec(rest)?.[0];
    if (!name) return this.literal('$', 1);
    this.i += 1 + (braced ? braced[0].length : name.length);
    (this.word ??= []).push({ variable: name });
  }
}

/** The steps of a script, in order. */
export function parseScript(src: string): Step[] {
  return new Lexer(src).run();
}

/** A word with its variables expanded; a word made only of unset variables is no word at all. */
export function expandWords(words: Word[], lookup: (name: string) => string | undefined): string[] {
  const out: string[] = [];
  for (const word of words) {
    const values = word.map((part) => ('text' in part ? part.text : lookup(part.variable)));
    if (values.every((v) => v === undefined)) continue;
    out.push(values.map((v) => v ?? '').join(''));
  }
  return out;
}
