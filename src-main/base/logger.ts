/**
 * A small logger for code that runs both inside the desktop app and in a terminal (the
 * emulator): callers pass one in, so nothing writes to process.stderr behind the app's back.
 * `fields` are structured context (ids, counts), printed after the message.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** Renders `message key=value …` (values with spaces or quotes JSON-quoted). */
export function formatLogLine(prefix: string, level: LogLevel, message: string, fields?: LogFields): string {
  let line = `${prefix}${level === 'info' ? '' : `${level}: `}${message}`;
  for (const [k, v] of Object.entries(fields ?? {})) {
    if (v === undefined) continue;
    const text = String(v);
    line += ` ${k}=${/[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text}`;
  }
  return line;
}

/** Writes one line per entry at or above `minLevel` to `write` (process.stderr by default). */
export function stderrLogger(prefix = '', opts: { minLevel?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const min = LEVELS.indexOf(opts.minLevel ?? 'info');
  const write = opts.write ?? ((line: string) => void process.stderr.write(line));
  const at =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (LEVELS.indexOf(level) >= min) write(`${formatLogLine(prefix, level, message, fields)}\n`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Drops everything. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** `logger` with `prefix` before every message (which part of the app speaks). */
export function prefixedLogger(logger: Logger, prefix: string): Logger {
  return {
    debug: (m, f) => logger.debug(prefix + m, f),
    info: (m, f) => logger.info(prefix + m, f),
    warn: (m, f) => logger.warn(prefix + m, f),
    error: (m, f) => logger.error(prefix + m, f),
  };
}
