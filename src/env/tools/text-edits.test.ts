import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changedRegion, insertAfter, numberLines, replaceUnique, snippet, splitLines } from './text-edits.ts';

const FILE = 'def f(x):\n    y = x + 1\n    return y\n\n\ndef g(x):\n    y = x + 1\n    return y * 2\n';

describe('splitLines and numberLines', () => {
  it('does not count a final newline as another line', () => {
    assert.deepEqual(splitLines('a\nb\n'), ['a', 'b']);
    assert.deepEqual(splitLines('a\nb'), ['a', 'b']);
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(splitLines('\n'), ['']);
  });

  it('numbers like cat -n', () => {
    assert.equal(numberLines(['a', 'b'], 9), '     9\ta\n    10\tb');
  });
});

describe('replaceUnique', () => {
  it('replaces a unique match and says where and how many lines', () => {
    const r = replaceUnique(FILE, '    return y * 2\n', '    z = y * 2\n    return z\n');
    assert.deepEqual(r, {
      kind: 'replaced',
      text: FILE.replace('    return y * 2\n', '    z = y * 2\n    return z\n'),
      startLine: 8,
      oldLineCount: 1,
      newLineCount: 2,
    });
  });

  it('deletes when new_str is empty', () => {
    const r = replaceUnique('a\nb\nc\n', 'b\n', '');
    assert.equal(r.kind === 'replaced' && r.text, 'a\nc\n');
  });

  it('refuses an ambiguous match, listing the lines of every occurrence', () => {
    assert.deepEqual(replaceUnique(FILE, 'y = x + 1', 'y = x'), { kind: 'ambiguous', lines: [2, 7] });
  });

  it('counts overlapping occurrences too', () => {
    assert.deepEqual(replaceUnique('aaa\n', 'aa', 'b'), { kind: 'ambiguous', lines: [1, 1] });
  });

  it('points at a region that matches once whitespace is ignored', () => {
    const r = replaceUnique(FILE, 'def g(x):\n  y = x + 1\n  return y * 2', 'x');
    assert.deepEqual(r, { kind: 'not_found', looseMatchLines: [6] });
    assert.deepEqual(replaceUnique(FILE, 'nowhere', 'x'), { kind: 'not_found', looseMatchLines: [] });
  });
});

describe('insertAfter', () => {
  it('inserts at the top, in the middle and at the end', () => {
    assert.deepEqual(insertAfter('a\nb\n', 0, 'x'), {
      kind: 'inserted',
      text: 'x\na\nb\n',
      startLine: 1,
      newLineCount: 1,
    });
    assert.deepEqual(insertAfter('a\nb\n', 1, 'x\ny\n'), {
      kind: 'inserted',
      text: 'a\nx\ny\nb\n',
      startLine: 2,
      newLineCount: 2,
    });
    assert.equal((insertAfter('a\nb\n', 2, 'x') as { text: string }).text, 'a\nb\nx\n');
  });

  it("keeps a file's missing final newline missing, and fills an empty file", () => {
    assert.equal((insertAfter('a\nb', 1, 'x') as { text: string }).text, 'a\nx\nb');
    assert.equal((insertAfter('a\nb', 2, 'x') as { text: string }).text, 'a\nb\nx');
    assert.equal((insertAfter('', 0, 'x') as { text: string }).text, 'x\n');
  });

  it('refuses a line outside the file, saying how long it is', () => {
    assert.deepEqual(insertAfter('a\nb\n', 3, 'x'), { kind: 'out_of_range', lineCount: 2 });
    assert.deepEqual(insertAfter('a\nb\n', -1, 'x'), { kind: 'out_of_range', lineCount: 2 });
  });
});

describe('changedRegion', () => {
  it('finds the one block that differs', () => {
    assert.deepEqual(changedRegion('a\nb\nc\nd\n', 'a\nB1\nB2\nc\nd\n'), {
      startLine: 2,
      oldLineCount: 1,
      newLineCount: 2,
    });
    assert.deepEqual(changedRegion('a\nb\nc\n', 'a\nc\n'), {
      startLine: 2,
      oldLineCount: 1,
      newLineCount: 0,
    });
    assert.deepEqual(changedRegion('', 'a\n'), { startLine: 1, oldLineCount: 0, newLineCount: 1 });
    assert.deepEqual(changedRegion('a\n', 'a\n'), { startLine: 2, oldLineCount: 0, newLineCount: 0 });
  });
});

describe('snippet', () => {
  it('shows the edited lines with context, clipped to the file', () => {
    const text = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n');
    assert.equal(snippet(text, 10, 2, 2), numberLines(['l8', 'l9', 'l10', 'l11', 'l12', 'l13'], 8));
    assert.equal(snippet(text, 1, 1, 2), numberLines(['l1', 'l2', 'l3'], 1));
    assert.equal(snippet(text, 20, 1, 2), numberLines(['l18', 'l19', 'l20'], 18));
  });
});
