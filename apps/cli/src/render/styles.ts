// ANSI colors, only for a terminal and never when NO_COLOR is set (https://no-color.org).
import type { CliIo } from "../cli-io.js";

export interface Styles {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly green: (text: string) => string;
  readonly red: (text: string) => string;
  readonly yellow: (text: string) => string;
}

const sgr = (open: number, close: number) => (text: string) =>
  text === "" ? text : `\x1b[${open}m${text}\x1b[${close}m`;

export const colorStyles: Styles = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  green: sgr(32, 39),
  red: sgr(31, 39),
  yellow: sgr(33, 39),
};

const same = (text: string) => text;
export const plainStyles: Styles = { bold: same, dim: same, green: same, red: same, yellow: same };

export function stylesFor(io: Pick<CliIo, "isTTY" | "env">): Styles {
  const noColor = io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== "";
  return io.isTTY && !noColor ? colorStyles : plainStyles;
}
