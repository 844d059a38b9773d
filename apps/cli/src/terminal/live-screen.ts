// Where a live view goes: on a terminal each frame replaces the previous one (cursor home,
// clear screen); otherwise frames are appended, separated by a blank line, with no escape codes.
import type { CliIo } from "../cli-io.js";

const HOME_AND_CLEAR = "\x1b[H\x1b[2J";

export class LiveScreen {
  private frames = 0;

  constructor(private readonly io: Pick<CliIo, "stdout" | "isTTY">) {}

  show(frame: string): void {
    const prefix = this.io.isTTY ? HOME_AND_CLEAR : this.frames > 0 ? "\n" : "";
    this.frames += 1;
    this.io.stdout.write(prefix + frame);
  }
}
