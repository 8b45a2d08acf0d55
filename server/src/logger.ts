import { pino, type Logger } from 'pino';

/** JSON logs; credentials are redacted wherever they might appear. */
export function createLogger(level: string, name = 'sched'): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'apiKey',
        'api_key',
        'webhook_secret',
        'secret',
        '*.webhook_secret',
        '*.apiKey',
      ],
      censor: '[redacted]',
    },
  });
}
