import { ConfigError } from '../errors.ts';

/** One part of a multipart/form-data body (RFC 7578). */
export interface MultipartPart {
  name: string | undefined;
  /** As sent: the E2B SDK puts the whole destination path here, directories included. */
  filename: string | undefined;
  data: Buffer;
}

/** The boundary of a `multipart/form-data; boundary=…` content type. */
export function multipartBoundary(contentType: string): string {
  const m = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary || boundary.length > 200) {
    throw new ConfigError('multipart/form-data without a valid boundary parameter');
  }
  return boundary;
}

/** Splits a whole multipart body into its parts; a body that does not close its last part is refused. */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  // With a CRLF in front, every delimiter, the first included, is CRLF "--" boundary.
  const data = Buffer.concat([Buffer.from('\r\n'), body]);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let at = data.indexOf(delimiter);
  if (at < 0) throw new ConfigError('malformed multipart body: no boundary found');
  const parts: MultipartPart[] = [];
  for (;;) {
    const after = at + delimiter.length;
    if (data.subarray(after, after + 2).toString() === '--') return parts;
    const lineEnd = data.indexOf('\r\n', after);
    if (lineEnd < 0) throw new ConfigError('malformed multipart body: a boundary line does not end');
    const next = data.indexOf(delimiter, lineEnd + 2);
    if (next < 0) throw new ConfigError('malformed multipart body: the last part is not closed');
    parts.push(parsePart(data.subarray(lineEnd + 2, next)));
    at = next;
  }
}

function parsePart(part: Buffer): MultipartPart {
  const split = part.indexOf('\r\n\r\n');
  const head = split < 0 ? part.toString('utf8') : part.subarray(0, split).toString('utf8');
  const data = split < 0 ? Buffer.alloc(0) : part.subarray(split + 4);
  let name: string | undefined;
  let filename: string | undefined;
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'content-disposition') continue;
    const params = dispositionParams(line.slice(colon + 1));
    name = params.name;
    filename = params.filename;
  }
  return { name, filename, data };
}

/**
 * The parameters of a Content-Disposition value. Quoted values may use backslash escapes; browsers and
 * undici instead percent-encode `"`, CR and LF in names (HTML's form encoding), which is undone here.
 */
function dispositionParams(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /;\s*([A-Za-z0-9_*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    const raw = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!.trim();
    out[m[1]!.toLowerCase()] = raw.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
  }
  return out;
}
