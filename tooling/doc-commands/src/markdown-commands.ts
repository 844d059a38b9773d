/** The commands a Markdown file shows in its shell code blocks. */

import { markdownCodeBlocks } from "./markdown-code-blocks.js";

/** One command as a reader would copy it: continuation lines joined, the comment dropped. */
export interface DocumentedCommand {
  /** The Markdown file, relative to the repository root. */
  readonly file: string;
  /** 1-based line of the command's first line in that file. */
  readonly line: number;
  /** Which code block of the file it is in (0-based), since `cd` carries over within a block. */
  readonly block: number;
  readonly text: string;
}

/** Blocks whose every line is a command. */
const SCRIPT_LANGUAGES = new Set(["sh", "bash", "shell", "zsh"]);
/** Blocks of a session: commands follow a `$ ` prompt, the other lines are their output. */
const SESSION_LANGUAGES = new Set(["console", "shell-session"]);

export function extractDocumentedCommands(markdown: string, file: string): DocumentedCommand[] {
  const commands: DocumentedCommand[] = [];
  let block = -1;
  for (const code of markdownCodeBlocks(markdown)) {
    const language = code.info.split(/\s+/)[0]?.toLowerCase() ?? "";
    if (SCRIPT_LANGUAGES.has(language) || SESSION_LANGUAGES.has(language)) {
      block++;
      const session = SESSION_LANGUAGES.has(language);
      for (const command of commandsOfBlock(code.lines, session)) {
        commands.push({ file, line: code.line + 1 + command.offset, block, text: command.text });
      }
    }
  }
  return commands;
}

function commandsOfBlock(
  body: readonly string[],
  session: boolean,
): { offset: number; text: string }[] {
  const out: { offset: number; text: string }[] = [];
  for (let k = 0; k < body.length; k++) {
    let line = body[k] as string;
    if (session) {
      if (!line.startsWith("$ ")) continue;
      line = line.slice(2);
    }
    const start = k;
    let text = stripComment(line);
    // A trailing backslash continues the command on the next line.
    while (text.endsWith("\\") && k + 1 < body.length) {
      k++;
      text = `${text.slice(0, -1).trimEnd()} ${stripComment(body[k] as string).trim()}`;
    }
    text = text.trim();
    if (text !== "") out.push({ offset: start, text });
  }
  return out;
}

/** Drops an unquoted `#` comment (one that starts a word), keeping quoted `#`s. */
export function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
      continue;
    }
    if (c === "\\") {
      i++;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] as string))) {
      return line.slice(0, i).trimEnd();
    }
  }
  return line.trimEnd();
}
