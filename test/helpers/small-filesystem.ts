import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface SmallFilesystem {
  /** Where it is mounted. */
  dir: string;
  /** Remounts it read-only. Linux refuses while a file on it is open for writing: close the databases first. */
  readOnly(): Promise<void>;
  /** Unmounts it and removes the mount point. */
  close(): Promise<void>;
}

/**
 * A tmpfs of `bytes` mounted for one test file, so that a disk is really full or really read-only — or, where the
 * test may not mount (not Linux, not root, a container without CAP_SYS_ADMIN), the reason, for the test to say which
 * substitute it uses.
 */
export async function mountSmallFilesystem(bytes: number): Promise<SmallFilesystem | { unavailable: string }> {
  if (process.platform !== "linux")
    return { unavailable: `mounting a tmpfs needs Linux (this is ${process.platform})` };
  const dir = await mkdtemp(join(tmpdir(), "pgw-small-fs-"));
  try {
    await run("mount", ["-t", "tmpfs", "-o", `size=${bytes},mode=0700`, "tmpfs", dir]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const reason = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    return { unavailable: `mount -t tmpfs is not permitted here (${reason})` };
  }
  return {
    dir,
    readOnly: async () => {
      await run("mount", ["-o", "remount,ro", dir]);
    },
    close: async () => {
      // Lazily if a file is still open on it: it goes once the last one closes.
      await run("umount", [dir]).catch(() => run("umount", ["-l", dir]));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
