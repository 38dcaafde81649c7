import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { isConfigError } from '../errors.ts';
import { forEachFilePart } from './multipart-files.ts';

async function collect(data: Readable): Promise<number[]> {
  const chunks: Buffer[] = [];
  for await (const c of data as AsyncIterable<Buffer>) chunks.push(c);
  return [...Buffer.concat(chunks)];
}

describe('forEachFilePart (multipart/form-data, streamed)', () => {
  it('streams what undici sends for FormData: full paths as filenames, binary data, fields skipped', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from([0, 13, 10, 45, 45, 255])]), '/tmp/dir/a "quoted".bin');
    form.append('note', 'not a file');
    form.append('file', new Blob(['second\n']), 'relative/b.txt');
    const request = new Request('http://x', { method: 'POST', body: form });
    const body = Readable.from([Buffer.from(await request.arrayBuffer())]);
    const seen: [string | undefined, number[]][] = [];
    await forEachFilePart(request.headers.get('content-type')!, body, async (name, data) => {
      seen.push([name, await collect(data)]);
    });
    assert.deepEqual(seen, [
      ['/tmp/dir/a "quoted".bin', [0, 13, 10, 45, 45, 255]],
      ['relative/b.txt', [...Buffer.from('second\n')]],
    ]);
  });

  it('refuses a body without a boundary or with an unclosed part (ConfigError)', async () => {
    await assert.rejects(
      forEachFilePart('multipart/form-data', Readable.from([]), async () => {}),
      (e: unknown) => isConfigError(e),
    );
    const open = Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\ndata');
    await assert.rejects(
      forEachFilePart('multipart/form-data; boundary=b', Readable.from([open]), (_, d) =>
        collect(d).then(() => {}),
      ),
      (e: unknown) => isConfigError(e),
    );
  });

  it('fails the body when a file handler fails, and drains the rest', async () => {
    const form = new FormData();
    form.append('file', new Blob(['one']), 'a');
    form.append('file', new Blob(['two']), 'b');
    const request = new Request('http://x', { method: 'POST', body: form });
    const body = Readable.from([Buffer.from(await request.arrayBuffer())]);
    await assert.rejects(
      forEachFilePart(request.headers.get('content-type')!, body, async () => {
        throw new Error('refused');
      }),
      /refused/,
    );
  });
});
