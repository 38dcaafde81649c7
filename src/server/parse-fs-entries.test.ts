import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFindEntries } from './parse-fs-entries.ts';

describe('find entries', () => {
  it('reads GNU find -printf records, names with newlines included', () => {
    const record = (...fields: string[]) => fields.map((f) => `${f}\0`).join('');
    const out =
      record(
        'f',
        '19',
        '644',
        '-rw-r--r--',
        'root',
        'root',
        '1700000000.5000000000',
        '',
        '/tmp/sdk//a\nb.txt',
      ) +
      record('d', '4096', '1777', 'drwxrwxrwt', 'root', 'root', '1700000001.0', '', '/tmp') +
      record('l', '1', '777', 'lrwxrwxrwx', '1000', '1000', '1700000002.0', '/', '/tmp/root-link') +
      record('p', '0', '600', 'prw-------', 'root', 'root', '1700000003.0', '', '/tmp/fifo');
    assert.deepEqual(parseFindEntries(out), [
      {
        name: 'a\nb.txt',
        type: 'FILE_TYPE_FILE',
        path: '/tmp/sdk/a\nb.txt',
        size: '19',
        mode: 0o644,
        permissions: '-rw-r--r--',
        owner: 'root',
        group: 'root',
        modifiedTime: '2023-11-14T22:13:20.500Z',
      },
      {
        name: 'tmp',
        type: 'FILE_TYPE_DIRECTORY',
        path: '/tmp',
        size: '4096',
        mode: 0o777,
        permissions: 'drwxrwxrwt',
        owner: 'root',
        group: 'root',
        modifiedTime: '2023-11-14T22:13:21.000Z',
      },
      {
        name: 'root-link',
        type: 'FILE_TYPE_SYMLINK',
        path: '/tmp/root-link',
        size: '1',
        mode: 0o777,
        permissions: 'lrwxrwxrwx',
        owner: '1000',
        group: '1000',
        modifiedTime: '2023-11-14T22:13:22.000Z',
        symlinkTarget: '/',
      },
      {
        name: 'fifo',
        type: 'FILE_TYPE_UNSPECIFIED',
        path: '/tmp/fifo',
        size: '0',
        mode: 0o600,
        permissions: 'prw-------',
        owner: 'root',
        group: 'root',
        modifiedTime: '2023-11-14T22:13:23.000Z',
      },
    ]);
    assert.deepEqual(parseFindEntries(''), []);
  });

  it('refuses a cut record instead of dropping it', () => {
    assert.throws(() => parseFindEntries('f\x0019\x00'), /unexpected output of find/);
  });
});
