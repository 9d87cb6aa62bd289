import type { IncomingMessage } from 'node:http';
import { parseManagementToken, signManagementToken, verifySign, TokenFormatError } from '../protocol/tokens';
import { HttpError } from './http-util';
import type { EmulatorConfig } from './contracts';

/**
 * Checks the management token of a request (protocol-notes "Management token"): the
 * signed string is the path with its raw query, a newline, and the raw body.
 * Throws HttpError 401 with a message saying what is wrong.
 */
export function checkManagementAuth(
  req: IncomingMessage,
  body: Buffer,
  config: EmulatorConfig,
  codeStyle: 'string' | 'number',
): void {
  const header = req.headers.authorization;
  if (!header) throw new HttpError(401, 'Authorization header with a management token is required', codeStyle);
  let parsed: { accessKey: string; sign: string };
  try {
    parsed = parseManagementToken(header);
  } catch (e) {
    if (e instanceof TokenFormatError) throw new HttpError(401, `bad token: ${e.message}`, codeStyle);
    throw e;
  }
  if (parsed.accessKey !== config.accessKey) throw new HttpError(401, 'bad token: unknown access key', codeStyle);
  const pathWithQuery = req.url ?? '/';
  const expected = signManagementToken(config.accessKey, config.secretKey, pathWithQuery, body);
  if (!verifySign(expected, header.trim())) throw new HttpError(401, 'bad token: signature does not match', codeStyle);
}
