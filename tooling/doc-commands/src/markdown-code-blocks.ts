/** The fenced code blocks of a Markdown text, as CommonMark closes them. */

export interface MarkdownCodeBlock {
  /** The fence's info string, trimmed: the language, then attributes (`ts title="x.mts"`). */
  readonly info: string;
  /** The lines between the fences. */
  readonly lines: readonly string[];
  /** 1-based line of the opening fence. */
  readonly line: number;
}

const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;

export function markdownCodeBlocks(markdown: string): MarkdownCodeBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: MarkdownCodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] as string);
    if (open === null) continue;
    const end = closingFence(lines, i + 1, open[2] as string);
    blocks.push({ info: (open[3] ?? "").trim(), lines: lines.slice(i + 1, end), line: i + 1 });
    i = end;
  }
  return blocks;
}

/** The line that closes a fence: the same character, at least as many times, nothing else. */
function closingFence(lines: readonly string[], from: number, fence: string): number {
  const char = fence[0] === "~" ? "~" : "`";
  const closing = new RegExp(`^ {0,3}\\${char}{${fence.length},}\\s*$`);
  for (let j = from; j < lines.length; j++) {
    if (closing.test(lines[j] as string)) return j;
  }
  return lines.length;
}
