// Aligned columns, kubectl style: two spaces between columns, no trailing spaces. Styling is
// applied after padding so escape codes never disturb the alignment.

export interface TableRow {
  readonly cells: readonly string[];
  /** Applied to the whole padded line. */
  readonly style?: ((text: string) => string) | undefined;
}

export function formatTable(
  headers: readonly string[],
  rows: readonly TableRow[],
  headerStyle: (text: string) => string = (text) => text,
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row.cells[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [
    headerStyle(line(headers)),
    ...rows.map((row) => (row.style ?? ((text: string) => text))(line(row.cells))),
  ]
    .map((text) => `${text}\n`)
    .join("");
}
