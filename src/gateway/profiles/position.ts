/**
 * JSONata reports an error's `position` as the 1-based offset of the offending token's last character. Owners edit
 * profiles as multi-line text, so the engine also gives a 1-based line and column for that character.
 */
export function lineColumn(text: string, position: number): { line: number; column: number } {
  const offset = Math.min(Math.max(position - 1, 0), text.length);
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
