/** What the checks need to know about the repository: its packages, their scripts and binaries. */

export interface WorkspacePackage {
  /** The package.json `name`; the root package's too. */
  readonly name: string;
  /** Folder relative to the repository root, "" for the root. */
  readonly dir: string;
  readonly scripts: Readonly<Record<string, string>>;
  /** Names in the package's node_modules/.bin: what `pnpm exec` can run there. */
  readonly bins: ReadonlySet<string>;
}

export interface Workspace {
  readonly root: WorkspacePackage;
  /** Every workspace package (not the root). */
  readonly packages: readonly WorkspacePackage[];
  /** The version in the root package.json's `packageManager` (`pnpm@X`), if any. */
  readonly pnpmVersion: string | undefined;
  /** Whether a file or folder exists, for a path relative to the repository root. */
  exists(path: string): boolean;
}

export function findPackage(workspace: Workspace, name: string): WorkspacePackage | undefined {
  if (workspace.root.name === name) return workspace.root;
  return workspace.packages.find((p) => p.name === name);
}
