/** A download's pipeline read stage by stage, for a stage that runs what the download writes. */
import { pipelineStages } from "../shell-words.js";
import { DOWNLOADER } from "./downloads.js";
import { stageRunner, writesNoStageInput } from "./stages.js";
import { writtenInto } from "./written-into.js";

/**
 * `piped into sh`, when a pipe after a download leads into something that runs what it reads. Each download
 * on the line is read up to where its pipeline ends (`curl …; curl … | sh`), and the search for the next
 * starts there; a pipeline a separator ended is read for a group's end only up to the next download, so
 * that each character is read by one pipeline.
 */
export function pipedInto(command: string): string | undefined {
  const downloads = new RegExp(DOWNLOADER.source, "gi");
  let download = downloads.exec(command);
  while (download !== null) {
    const next = downloads.exec(command);
    let downloadStage = true;
    let end = download.index + 1;
    for (const stage of pipelineStages(command, download.index, next?.index)) {
      end = Math.max(end, stage.end);
      // The download's own stage reads nothing piped, but may write into a command; so may each stage after.
      const written = writtenInto(stage.text, downloadStage);
      const runner = written ?? (downloadStage ? undefined : stageRunner(stage.text, true, true));
      // A stage that runs what it reads drops none of it; one that runs nothing, or writes into a runner,
      // may write nothing it reads (`curl … | echo hi | sh`, `| echo hi > >(sh)`): from it on, no stage gets
      // the download, and a download in a later stage is read as one of its own (`… | echo hi | curl … |
      // sh`). Asked only then, so that a pipe into sh costs no more reading.
      const mayDrop = !downloadStage && (runner === undefined || written !== undefined);
      if (mayDrop && writesNoStageInput(stage.text)) break;
      if (runner !== undefined) return runner;
      downloadStage = false;
    }
    if (next === null || next.index >= end) {
      download = next;
    } else {
      downloads.lastIndex = end;
      download = downloads.exec(command);
    }
  }
  return undefined;
}
