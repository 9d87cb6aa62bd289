import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * CORS for browser clients of the upload and management endpoints (the real service
 * serves browser SDKs). Any origin is allowed: tokens, not cookies, carry authority.
 */
const ALLOW_HEADERS = [
  'Authorization',
  'Content-Type',
  'UploadBatch',
  'Key',
  'MimeType',
  'Deadline',
  'Range',
  'X-Requested-With',
  'Cache-Control',
];
const EXPOSE_HEADERS = [
  'X-Reqid',
  'X-Log',
  'Content-Length',
  'Content-Range',
  'Content-Type',
  'ETag',
  'Accept-Ranges',
  'Last-Modified',
];
const ALLOW_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'];
export const PREFLIGHT_MAX_AGE_SECONDS = 86_400;

export function setCorsHeaders(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS.join(', '));
}

/** Answers an OPTIONS preflight (204). */
export function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  setCorsHeaders(req, res);
  res.writeHead(204, {
    'Access-Control-Allow-Methods': ALLOW_METHODS.join(', '),
    'Access-Control-Allow-Headers': ALLOW_HEADERS.join(', '),
    'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
    'Content-Length': '0',
  });
  res.end();
}
