/** Columns of white space at a line's start as CommonMark counts them: a tab to the next multiple of four. */
/** The columns a tab at `column` takes: to the next multiple of four, as CommonMark reads it. */
export function tabWidthAt(column: number): number {
  return 4 - (column % 4);
}

/**
 * The columns of white space that start `line` (a tab to the next multiple of four, counted from `column`,
 * where the line's first character stands as written), and its characters.
 */
export function indentation(line: string, column = 0): { indent: number; width: number } {
  let indent = 0;
  let width = 0;
  for (; width < line.length; width++) {
    const code = line.charCodeAt(width);
    if (code === 0x20) indent++;
    else if (code === 0x09) indent += tabWidthAt(column + indent);
    else break;
  }
  return { indent, width };
}
