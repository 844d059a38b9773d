// The workspace as the suite reads it: which packages a user can install, their versions, and
// the examples and commands their READMEs show.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { markdownCodeBlocks } from "@destination/doc-commands/markdown-code-blocks";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export interface PublishablePackage {
  readonly name: string;
  readonly version: string;
  /** e.g. `packages/endpoints-watcher` */
  readonly dir: string;
}

/** Every workspace package without `private`: what `pnpm release` publishes. */
export function publishablePackages(): PublishablePackage[] {
  const found: PublishablePackage[] = [];
  for (const group of ["packages", "apps", "tooling"]) {
    for (const name of readdirSync(join(ROOT, group)).sort()) {
      const file = join(ROOT, group, name, "package.json");
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, "utf8")) as {
        name: string;
        version: string;
        private?: boolean;
      };
      if (manifest.private !== true) {
        found.push({ name: manifest.name, version: manifest.version, dir: `${group}/${name}` });
      }
    }
  }
  return found;
}

export function workspacePackage(name: string): PublishablePackage {
  const found = publishablePackages().find((p) => p.name === name);
  if (found === undefined) throw new Error(`${name} is not a publishable workspace package`);
  return found;
}

/** The version the workspace pins for a tool (root devDependencies): typescript, @types/node. */
export function rootPin(name: string): string {
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  const version = root.devDependencies[name];
  if (version === undefined) throw new Error(`the root package.json does not pin ${name}`);
  return version;
}

export interface CodeBlock {
  /** The fence's info string: language, then attributes such as `title="watch.mts"`. */
  readonly info: string;
  readonly body: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
}

export function readmeBlocks(readme: string): CodeBlock[] {
  return markdownCodeBlocks(readFileSync(readme, "utf8")).map(({ info, lines, line }) => ({
    info,
    body: lines.join("\n"),
    line,
  }));
}

/** The body of the README's code block titled `file` (```` ```ts title="watch.mts" ````). */
export function readmeExample(readme: string, file: string): string {
  const matches = readmeBlocks(readme).filter((b) => b.info.includes(`title="${file}"`));
  if (matches.length !== 1) {
    throw new Error(`${readme}: expected one code block titled "${file}", found ${matches.length}`);
  }
  return `${(matches[0] as CodeBlock).body}\n`;
}

/** The lines of the README's block titled `title` (```` ```text title="watch.mts prints" ````). */
export function readmeOutput(readme: string, title: string): string[] {
  return readmeExample(readme, title).trimEnd().split("\n");
}

/** The packages the README's `npm i` line installs (the first `sh` line naming our scope). */
export function readmeInstall(readme: string): string[] {
  for (const block of readmeBlocks(readme)) {
    if (!/^(sh|bash|shell)\b/.test(block.info)) continue;
    const match = /\bnpm i(?: -g)?((?: @destination\/[\w.-]+)+)/.exec(block.body);
    if (match !== null) return (match[1] as string).trim().split(/\s+/);
  }
  throw new Error(`${readme}: no \`npm i @destination/…\` line`);
}

/** The arguments of the README's `npx tsc …` line, the command that type-checks its example. */
export function readmeTypecheck(readme: string): string[] {
  for (const block of readmeBlocks(readme)) {
    if (!/^(sh|bash|shell)\b/.test(block.info)) continue;
    const match = /\bnpx tsc ([^#&|;\n]+)/.exec(block.body);
    if (match !== null) return (match[1] as string).trim().split(/\s+/);
  }
  throw new Error(`${readme}: no \`npx tsc …\` line`);
}

export interface Transcript {
  /** The words after `$ `. */
  readonly command: string[];
  /** The lines printed, up to the next prompt or the end of the block. */
  readonly output: string[];
}

/** The README's `console` transcripts whose command starts with `prefix`. */
export function readmeTranscripts(readme: string, prefix: string): Transcript[] {
  const found: Transcript[] = [];
  for (const block of readmeBlocks(readme)) {
    if (!block.info.startsWith("console")) continue;
    const lines = block.body.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      if (!line.startsWith(`$ ${prefix}`)) continue;
      const command = line
        .slice(2)
        .replace(/\s+#.*$/, "")
        .trim()
        .split(/\s+/);
      const output: string[] = [];
      for (let j = i + 1; j < lines.length && !(lines[j] as string).startsWith("$ "); j++) {
        output.push(lines[j] as string);
      }
      while (output.length > 0 && (output[output.length - 1] as string).trim() === "") output.pop();
      found.push({ command, output });
    }
  }
  return found;
}
