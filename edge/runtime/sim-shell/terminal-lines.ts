/**
 * What a terminal in canonical mode does with typed bytes (kubectl exec -it sends raw keys):
 * echoes them, ends a line at Enter (\r or \n), erases with Backspace, drops the line on ^C,
 * and ends the input on ^D at the start of a line.
 */
export async function* terminalLines(input: AsyncIterable<Buffer>, echo: (text: string) => Promise<void>): AsyncIterable<string> {
  let line = '';
  for await (const chunk of input) {
    for (const ch of chunk.toString('utf8')) {
      if (ch === '\r' || ch === '\n') {
        await echo('\n');
        yield line;
        line = '';
      } else if (ch === '\x7f' || ch === '\b') {
        if (line) await echo('\b \b');
        line = line.slice(0, -1);
      } else if (ch === '\x03') {
        await echo('^C\n');
        line = '';
        yield '';
      } else if (ch === '\x04') {
        if (!line) return;
      } else {
        await echo(ch);
        line += ch;
      }
    }
  }
}
