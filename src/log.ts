import { type Logger, pino } from "pino";

export type { Logger } from "pino";

/** §5.9: a key is only ever quoted by its first 14 characters. */
export const KEY_PREFIX_LENGTH = 14;

export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}

const REDACT = [
  "req.headers['x-api-key']",
  "req.headers.authorization",
  "req.headers.cookie",
  "headers['x-api-key']",
  "headers.authorization",
  "*.apiKey",
  "*.secret",
  "*.password",
  "*.token",
  "*.masterKey",
  "apiKey",
  "secret",
  "password",
  "token",
];

export interface LoggerOptions {
  level?: string;
  pretty?: boolean;
  /** Where lines go; tests pass a stream to read what was logged. */
  destination?: NodeJS.WritableStream;
  name?: string;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const base = {
    level: options.level ?? "info",
    name: options.name,
    redact: { paths: REDACT, censor: "[redacted]" },
  };
  if (options.pretty && !options.destination) {
    return pino({ ...base, transport: { target: "pino-pretty", options: { colorize: true } } });
  }
  return options.destination ? pino(base, options.destination) : pino(base);
}
