// The endpoint table of `get` and `endpoints`.
import type { WeightedAddr } from "@destination/proto";
import { endpointFields } from "../endpoints/endpoint-fields.js";
import type { EndpointMark } from "../endpoints/endpoint-set.js";
import type { Styles } from "./styles.js";
import { formatTable, type TableRow } from "./text-table.js";

export interface EndpointTableRow {
  readonly endpoint: WeightedAddr;
  readonly mark?: EndpointMark | undefined;
  /** Cells for `leadingHeaders`, e.g. the authority a row answers. */
  readonly leading?: readonly string[] | undefined;
}

export interface EndpointTableOptions {
  readonly styles: Styles;
  /** Add the `+`/`~`/`-` column (live views). */
  readonly showMarks: boolean;
  readonly leadingHeaders?: readonly string[] | undefined;
}

const MARK_SYMBOL: Readonly<Record<EndpointMark, string>> = {
  added: "+",
  changed: "~",
  removed: "-",
  unchanged: " ",
};

const HEADERS = ["IP", "PORT", "POD", "OWNER", "IDENTITY", "PROTOCOL HINT", "ZONE"];

export function formatEndpointTable(
  rows: readonly EndpointTableRow[],
  options: EndpointTableOptions,
): string {
  const { styles, showMarks } = options;
  const fields = rows.map((row) => endpointFields(row.endpoint));
  // Only gateway (pod-less) addresses carry an override; keep the column out of the way otherwise.
  const withOverride = fields.some((f) => f.authorityOverride !== "");
  const headers = [
    ...(showMarks ? [" "] : []),
    ...(options.leadingHeaders ?? []),
    ...HEADERS,
    ...(withOverride ? ["AUTHORITY OVERRIDE"] : []),
  ];
  const markStyle: Readonly<Record<EndpointMark, ((text: string) => string) | undefined>> = {
    added: styles.green,
    changed: styles.yellow,
    removed: styles.red,
    unchanged: undefined,
  };
  const tableRows: TableRow[] = rows.map((row, index) => {
    const f = fields[index];
    const mark = row.mark ?? "unchanged";
    const cells = f
      ? [f.ip, f.port, f.pod, f.owner, f.identity, f.protocolHint, f.zone]
      : HEADERS.map(() => "");
    return {
      cells: [
        ...(showMarks ? [MARK_SYMBOL[mark]] : []),
        ...(row.leading ?? []),
        ...cells,
        ...(withOverride ? [f?.authorityOverride || "-"] : []),
      ],
      style: showMarks ? markStyle[mark] : undefined,
    };
  });
  return formatTable(headers, tableRows, styles.bold);
}
