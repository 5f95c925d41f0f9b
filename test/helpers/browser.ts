import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). Never a browser download. */
export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOTS = join(process.cwd(), "test-output", "console");

/**
 * Like the Redis tests: without Chromium the browser suite fails under CI=true and is skipped elsewhere, saying why.
 */
export function browserAvailability(): { available: boolean; reason?: string } {
  if (existsSync(CHROMIUM)) return { available: true };
  const reason = `Chromium not found at ${CHROMIUM} (apt-get install -y chromium)`;
  if (process.env.CI === "true") throw new Error(`${reason}: the browser suite must run in CI`);
  process.stderr.write(`skipping the console browser suite: ${reason}\n`);
  return { available: false, reason };
}

export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    // Root in CI containers has no user namespaces for Chromium's sandbox; the pages are our own.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
}

export const screenshot = (name: string) => join(SCREENSHOTS, `${name}.png`);
