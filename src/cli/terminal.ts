import type { Env } from "../config.js";
import { createLogger, type Logger } from "../log.js";

/**
 * What a command prints is for whoever reads it: on a terminal, human-readable log lines beside the banner; anywhere
 * else (a pipe, a file, a container's log collector), stdout carries JSON log lines only, one object per line, and the
 * banner goes to stderr so that it never breaks a JSON consumer.
 */
const onTerminal = process.stdout.isTTY === true;

/** The command's logger: pretty on a terminal unless LOG_PRETTY says otherwise, JSON elsewhere. */
export function commandLogger(env: Pick<Env, "LOG_LEVEL" | "LOG_PRETTY">, name: string): Logger {
  return createLogger({ level: env.LOG_LEVEL, pretty: env.LOG_PRETTY ?? onTerminal, name });
}

/** The start-up banner (URLs, public test keys). */
export function writeBanner(text: string): void {
  (onTerminal ? process.stdout : process.stderr).write(text);
}
