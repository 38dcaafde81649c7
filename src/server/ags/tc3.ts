import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Tencent Cloud API 3.0 signatures (TC3-HMAC-SHA256), checked on the server side. The client side is
 * Tencent's own SDK; this is the other half, written from the published algorithm
 * (cloud.tencent.com/document/api/213/30654): a canonical request of the signed headers and the body's
 * SHA-256, hashed into a string to sign, HMAC'd with a key derived from the secret, the date and the service.
 */

export const TC3_ALGORITHM = 'TC3-HMAC-SHA256';

/** The parts of a request a TC3 signature covers. */
export interface Tc3Input {
  method: string;
  path: string;
  query: string;
  /** Lower-case header name → value, for each signed header. */
  headers: Readonly<Record<string, string>>;
  signedHeaders: readonly string[];
  body: Buffer | string;
  timestamp: number;
  service: string;
}

const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** The UTC date of a Unix timestamp, YYYY-MM-DD: the credential scope's date. */
export function tc3Date(timestamp: number): string {
  return new Date(timestamp * 1000).toISOString().slice(0, 10);
}

export function canonicalRequest(i: Tc3Input): string {
  const headers = i.signedHeaders.map((h) => `${h}:${(i.headers[h] ?? '').trim().toLowerCase()}\n`).join('');
  return [i.method, i.path, i.query, headers, i.signedHeaders.join(';'), sha256Hex(i.body)].join('\n');
}

export function stringToSign(i: Tc3Input): string {
  return [
    TC3_ALGORITHM,
    String(i.timestamp),
    `${tc3Date(i.timestamp)}/${i.service}/tc3_request`,
    sha256Hex(canonicalRequest(i)),
  ].join('\n');
}

/** The hex signature of a request under `secretKey`. */
export function tc3Signature(i: Tc3Input, secretKey: string): string {
  const signing = hmac(hmac(hmac(`TC3${secretKey}`, tc3Date(i.timestamp)), i.service), 'tc3_request');
  return createHmac('sha256', signing).update(stringToSign(i), 'utf8').digest('hex');
}

/** An `Authorization` header, parsed. */
export interface Tc3Authorization {
  secretId: string;
  date: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** `TC3-HMAC-SHA256 Credential=<id>/<date>/<service>/tc3_request, SignedHeaders=a;b, Signature=<hex>`. */
export function parseTc3Authorization(header: string): Tc3Authorization | undefined {
  const m =
    /^TC3-HMAC-SHA256\s+Credential=([^/\s,]+)\/(\d{4}-\d{2}-\d{2})\/([a-z0-9-]+)\/tc3_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
      header.trim(),
    );
  if (!m) return undefined;
  return { secretId: m[1]!, date: m[2]!, service: m[3]!, signedHeaders: m[4]!.split(';'), signature: m[5]! };
}

/** Constant-time comparison of two hex signatures. */
export function signaturesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
