import { visible } from "../shared/index.js";

/** Where a sync says how it goes: on stderr, so that stdout holds only what was asked for (the plan). */
export interface Progress {
  /** A line that stays: a skill skipped, removed, or a warning. */
  note(text: string): void;
  /**
   * Skill `done` of `total` to fetch is through, with what became of it; `lasting` (a skip) keeps its
   * line on a terminal too.
   */
  skill(done: number, total: number, name: string, outcome: string, lasting: boolean): void;
  /** Clears what only a terminal shows. */
  finish(): void;
}

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

const BAR_WIDTH = 24;

/**
 * A line per skill, or on a terminal one bar redrawn in place, with the lines that stay printed above it.
 * Names and reasons carry the server's strings: every character a terminal would act on (ESC, a line
 * break, bidi controls) is written as {U+…}, so a server cannot redraw the screen or fake a line.
 */
export function progressOn(stream: ProgressStream): Progress {
  const shown = shownOn(stream);
  return {
    note: (text) => shown.note(visible(text)),
    skill: (done, total, name, outcome, lasting) =>
      shown.skill(done, total, visible(name), visible(outcome), lasting),
    finish: () => shown.finish(),
  };
}

function shownOn(stream: ProgressStream): Progress {
  if (stream.isTTY !== true) {
    return {
      note: (text) => stream.write(`${text}\n`),
      skill: (done, total, name, outcome) => stream.write(`[${done}/${total}] ${name}: ${outcome}\n`),
      finish: () => undefined,
    };
  }
  let bar = "";
  const clear = "\r\x1b[K";
  return {
    note(text) {
      stream.write(`${clear}${text}\n${bar}`);
    },
    skill(done, total, name, outcome, lasting) {
      if (lasting) stream.write(`${clear}${name}: ${outcome}\n`);
      const filled = total === 0 ? BAR_WIDTH : Math.round((done / total) * BAR_WIDTH);
      const line = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${done}/${total} ${name}`;
      bar = line.slice(0, Math.max(BAR_WIDTH + 8, (stream.columns ?? 80) - 1));
      stream.write(`${clear}${bar}`);
    },
    finish() {
      if (bar !== "") stream.write(clear);
      bar = "";
    },
  };
}
