/**
 * Resolves once every one of `work` has settled, or after `ms`, whichever comes first (a graceful stop's deadline for
 * what is in flight). Never rejects; its timer goes as soon as it is not needed.
 */
export async function settledWithin(work: Iterable<Promise<unknown>>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([Promise.allSettled(work), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
