/** Just enough of the shell's grammar to read documented command lines. */

export interface ShellWord {
  /** The word with its quotes removed. */
  readonly value: string;
  /** False when the shell would expand it (`$VAR`, `~`, a glob), so it is not a literal path. */
  readonly literal: boolean;
}

/** One program run: `A=1 B=2 prog args…`, between `&&`, `||`, `;` or `|`. */
export interface SimpleCommand {
  readonly env: ReadonlyMap<string, string>;
  readonly words: readonly ShellWord[];
}

export class ShellSyntaxError extends Error {
  override readonly name = "ShellSyntaxError";
}

const OPERATORS = ["&&", "||", ";", "|", "&"];
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Splits a command line into its simple commands; throws ShellSyntaxError on an open quote. */
export function parseCommandLine(text: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let words: ShellWord[] = [];
  const finish = () => {
    if (words.length === 0) return;
    const env = new Map<string, string>();
    let k = 0;
    for (; k < words.length; k++) {
      const w = words[k] as ShellWord;
      if (!ASSIGNMENT.test(w.value)) break;
      const eq = w.value.indexOf("=");
      env.set(w.value.slice(0, eq), w.value.slice(eq + 1));
    }
    commands.push({ env, words: words.slice(k) });
    words = [];
  };

  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const operator = OPERATORS.find((op) => text.startsWith(op, i));
    if (operator !== undefined) {
      finish();
      i += operator.length;
      continue;
    }
    const word = readWord(text, i);
    words.push(word.word);
    i = word.end;
  }
  finish();
  return commands;
}

function readWord(text: string, start: number): { word: ShellWord; end: number } {
  let value = "";
  let literal = true;
  let i = start;
  if (text[i] === "~") literal = false;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c) || OPERATORS.some((op) => text.startsWith(op, i))) break;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) throw new ShellSyntaxError(`unclosed ' in: ${text}`);
      value += text.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\") j++;
        if (text[j] === "$") literal = false;
        value += text[j];
      }
      if (j >= text.length) throw new ShellSyntaxError(`unclosed " in: ${text}`);
      i = j + 1;
    } else if (c === "\\") {
      value += text[i + 1] ?? "";
      i += 2;
    } else {
      if (c === "$" || c === "*" || c === "?" || c === "`") literal = false;
      value += c;
      i++;
    }
  }
  return { word: { value, literal }, end: i };
}
