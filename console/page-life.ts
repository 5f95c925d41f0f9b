/** What a page leaves running (a live stream): stopped before the next page renders. */
const cleanups: (() => void)[] = [];

export function onPageLeave(cleanup: () => void): void {
  cleanups.push(cleanup);
}

export function leavePage(): void {
  for (const cleanup of cleanups.splice(0)) {
    try {
      cleanup();
    } catch {
      // A cleanup that fails must not keep the next page from rendering.
    }
  }
}
