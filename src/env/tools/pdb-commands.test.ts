import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  currentFrameFile,
  definitionHeaderAt,
  firstBodyLine,
  firstCommand,
  parseBreakAtLine,
  parseDeletedBreakpoints,
  parseSetBreakpoints,
} from './pdb-commands.ts';

const SOURCE = [
  'import functools', //                       1
  '', //                                       2
  '', //                                       3
  '@functools.lru_cache(maxsize=None)', //     4
  'def longest_path(grid: list[list[int]],', // 5
  '                 start=(0, 0)) -> int:', // 6
  '    """Length of the longest path.', //      7
  '', //                                       8
  '    Uses: depth-first search.', //           9
  '    """', //                                10
  '    # walk the grid', //                    11
  '    best = 0', //                           12
  '    return best - 1', //                    13
  '', //                                      14
  '', //                                      15
  'class Grid(object):', //                   16
  "    '''A grid.'''", //                     17
  '    def __init__(self, cells):', //        18
  '        self.cells = cells', //            19
  '', //                                      20
  '    async def size(self): return len(self.cells)', // 21
  "    d = {'a': 1}", //                      22
];

describe('firstCommand', () => {
  it('runs only the first of several commands', () => {
    assert.deepEqual(firstCommand('b solution.py:12; c'), { run: 'b solution.py:12', dropped: 'c' });
    assert.deepEqual(firstCommand('n\nn\np x'), { run: 'n', dropped: 'n;p x' });
    assert.deepEqual(firstCommand('  c  '), { run: 'c', dropped: undefined });
  });

  it('keeps p and pp whole: their argument is an expression', () => {
    assert.deepEqual(firstCommand('p [x for x in y]; z'), { run: 'p [x for x in y]; z', dropped: undefined });
    assert.deepEqual(firstCommand('pp a;b'), { run: 'pp a;b', dropped: undefined });
  });
});

describe('parseBreakAtLine', () => {
  it('reads file:line, a bare line, and a condition', () => {
    assert.deepEqual(parseBreakAtLine('b solution.py:12'), {
      file: 'solution.py',
      line: 12,
      condition: undefined,
      temporary: false,
    });
    assert.deepEqual(parseBreakAtLine('break 7, x > 3'), {
      file: undefined,
      line: 7,
      condition: 'x > 3',
      temporary: false,
    });
    assert.deepEqual(parseBreakAtLine('tbreak /t/a.py:3'), {
      file: '/t/a.py',
      line: 3,
      condition: undefined,
      temporary: true,
    });
  });

  it('leaves function breakpoints, listings and other commands to pdb', () => {
    assert.equal(parseBreakAtLine('b longest_path'), undefined);
    assert.equal(parseBreakAtLine('b'), undefined);
    assert.equal(parseBreakAtLine('bt'), undefined);
    assert.equal(parseBreakAtLine('c'), undefined);
  });
});

describe('definitionHeaderAt', () => {
  it('covers decorators, the def line and signature continuation lines', () => {
    const header = { startLine: 4, defLine: 5, endLine: 6, name: 'longest_path', inlineBody: false };
    for (const line of [4, 5, 6]) assert.deepEqual(definitionHeaderAt(SOURCE, line), header, `line ${line}`);
  });

  it('finds class and method headers, async ones and one-liners too', () => {
    assert.deepEqual(definitionHeaderAt(SOURCE, 16), {
      startLine: 16,
      defLine: 16,
      endLine: 16,
      name: 'Grid',
      inlineBody: false,
    });
    assert.equal(definitionHeaderAt(SOURCE, 18)?.name, '__init__');
    assert.deepEqual(definitionHeaderAt(SOURCE, 21), {
      startLine: 21,
      defLine: 21,
      endLine: 21,
      name: 'size',
      inlineBody: true,
    });
  });

  it('is undefined inside bodies and outside definitions', () => {
    for (const line of [1, 2, 10, 12, 13, 19, 22, 99, 0])
      assert.equal(definitionHeaderAt(SOURCE, line), undefined, `line ${line}`);
  });
});

describe('firstBodyLine', () => {
  it('skips the docstring, comments and blank lines', () => {
    assert.equal(firstBodyLine(SOURCE, definitionHeaderAt(SOURCE, 5)!), 12);
    assert.equal(firstBodyLine(SOURCE, definitionHeaderAt(SOURCE, 16)!), 19, "into the class's first method");
    assert.equal(firstBodyLine(SOURCE, definitionHeaderAt(SOURCE, 18)!), 19);
  });

  it('has no line to offer when the body sits on the header line', () => {
    assert.equal(firstBodyLine(SOURCE, definitionHeaderAt(SOURCE, 21)!), undefined);
  });
});

describe('reading pdb replies', () => {
  it('reads set and deleted breakpoints', () => {
    assert.deepEqual(parseSetBreakpoints('Breakpoint 3 at /testbed/solution.py:12\n'), [
      { number: 3, file: '/testbed/solution.py', line: 12 },
    ]);
    assert.deepEqual(
      parseDeletedBreakpoints(
        'Deleted breakpoint 1 at /testbed/a.py:3\nDeleted breakpoint 2 at /testbed/b.py:4',
      ),
      [
        { number: 1, file: '/testbed/a.py', line: 3 },
        { number: 2, file: '/testbed/b.py', line: 4 },
      ],
    );
    assert.deepEqual(parseSetBreakpoints('*** Blank or comment'), []);
  });

  it('finds the file of the frame pdb stopped in last', () => {
    const out =
      '> /usr/lib/python3/pytest/__main__.py(1)<module>()\n-> x\n..\n> /testbed/solution.py(12)f()\n-> best = 0';
    assert.equal(currentFrameFile(out), '/testbed/solution.py');
    assert.equal(currentFrameFile('(no frame)'), undefined);
  });
});
