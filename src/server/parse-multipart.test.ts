import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import { multipartBoundary, parseMultipart } from './parse-multipart.ts';

describe('multipart/form-data', () => {
  it('reads what undici sends for FormData: full paths as filenames, binary data, odd characters', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from([0, 13, 10, 45, 45, 255])]), '/tmp/dir/a "quoted".bin');
    form.append('note', 'not a file');
    form.append('file', new Blob(['second\n']), 'relative/b.txt');
    const request = new Request('http://x', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const parts = parseMultipart(body, multipartBoundary(request.headers.get('content-type')!));
    assert.deepEqual(
      parts.map((p) => [p.name, p.filename, [...p.data]]),
      [
        ['file', '/tmp/dir/a "quoted".bin', [0, 13, 10, 45, 45, 255]],
        ['note', undefined, [...Buffer.from('not a file')]],
        ['file', 'relative/b.txt', [...Buffer.from('second\n')]],
      ],
    );
  });

  it('refuses bodies without a boundary or with an unclosed part', () => {
    assert.throws(
      () => multipartBoundary('multipart/form-data'),
      (e: unknown) => isConfigError(e),
    );
    const open = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"\r\n\r\ndata');
    assert.throws(
      () => parseMultipart(open, 'b'),
      (e: unknown) => isConfigError(e) && /not closed/.test(e.message),
    );
    assert.throws(
      () => parseMultipart(Buffer.from('junk'), 'b'),
      (e: unknown) => isConfigError(e),
    );
    assert.deepEqual(parseMultipart(Buffer.from('--b--\r\n'), 'b'), []);
  });
});
