import { maskText, redactValue } from '../errors/redact.js';

/**
 * Anything with `debug`, `info`, `warn` and `error` methods taking a message and optional
 * details, e.g. `console`, pino or winston.
 * @group Client
 */
export interface Logger {
  /** One line per attempt, with method, path, status, attempt, idempotency key and elapsed time. */
  debug(message: string, details?: object): void;
  /** Retries: what failed, how long the SDK waits, with the same idempotency key. */
  info(message: string, details?: object): void;
  /** Things worth a look, e.g. a `Retry-After` longer than `maxRetryDelay`. */
  warn(message: string, details?: object): void;
  /** Reserved for failures the SDK cannot report by rejecting a promise. */
  error(message: string, details?: object): void;
}

/** How much the SDK logs. `'warn'` by default, or from the `OPENBANKING_LOG` environment variable. @group Client */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/** Log levels from quietest to loudest. */
export const LOG_LEVELS: readonly LogLevel[] = ['off', 'error', 'warn', 'info', 'debug'];

let warnedEnvironment = false;

/**
 * The level named by `OPENBANKING_LOG`, where `process` exists and the value is a known level. An
 * unknown value is ignored, and `logger` is told so once per process, with the valid levels.
 */
export function levelFromEnvironment(logger?: Logger): LogLevel | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.OPENBANKING_LOG;
  const level = value?.trim().toLowerCase();
  if (LOG_LEVELS.includes(level as LogLevel)) return level as LogLevel;
  if (level && logger && !warnedEnvironment) {
    warnedEnvironment = true;
    logger.warn(`openbanking-ng: OPENBANKING_LOG=${JSON.stringify(value).slice(1, 41).replace(/"$/, '')} is not a log level and is ignored; use one of ${LOG_LEVELS.join(', ')}`);
  }
  return undefined;
}

/** A {@link Logger} that knows which levels it writes. */
export interface LeveledLogger extends Logger {
  /** True when messages at `level` are written. */
  enabled(level: LogLevel): boolean;
  /** Debug lines are written: read once per attempt, a value rather than a call. */
  readonly debugging: boolean;
}

/**
 * A logger that drops messages above `level`. Callers redact what they know (a call's secret
 * fields); every line is redacted once more here, so no secret reaches the user's logger.
 */
export function leveledLogger(logger: Logger, level: LogLevel): LeveledLogger {
  const max = LOG_LEVELS.indexOf(level);
  const enabled = (l: LogLevel) => max > 0 && LOG_LEVELS.indexOf(l) <= max;
  const at =
    (l: Exclude<LogLevel, 'off'>) =>
    (message: string, details?: object): void => {
      if (!enabled(l)) return;
      try {
        if (details === undefined) logger[l](maskText(message));
        else logger[l](maskText(message), redactValue(details) as object);
      } catch {
        // a broken logger must never break a payment
      }
    };
  return { enabled, debugging: enabled('debug'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
