/**
 * The functions micro tasks are made of: each with its correct body, the bugs that can be injected into it
 * (a one-token change, as SWE-smith's operator-flip and constant-change mutations do), and inputs whose
 * results tell the correct body from every bug.
 */
export interface MicroFunction {
  name: string;
  params: string[];
  /** The correct `return` expression. */
  body: string;
  /** Buggy variants of `body`. */
  bugs: string[];
  /** Calls whose results differ between the correct body and each bug. */
  cases: number[][];
}

export const CATALOGUE: MicroFunction[] = [
  {
    name: 'add',
    params: ['a', 'b'],
    body: 'a + b',
    bugs: ['a - b', 'a * b'],
    cases: [
      [2, 3],
      [10, 4],
    ],
  },
  {
    name: 'subtract',
    params: ['a', 'b'],
    body: 'a - b',
    bugs: ['a + b', 'b - a'],
    cases: [
      [7, 2],
      [3, 9],
    ],
  },
  {
    name: 'multiply',
    params: ['a', 'b'],
    body: 'a * b',
    bugs: ['a + b', 'a ** b'],
    cases: [
      [3, 4],
      [5, 6],
    ],
  },
  { name: 'square', params: ['n'], body: 'n * n', bugs: ['n + n', 'n * 2'], cases: [[3], [5]] },
  { name: 'double', params: ['n'], body: 'n * 2', bugs: ['n * 3', 'n + 2'], cases: [[4], [7]] },
  { name: 'increment', params: ['n'], body: 'n + 1', bugs: ['n - 1', 'n + 2'], cases: [[4], [10]] },
  { name: 'decrement', params: ['n'], body: 'n - 1', bugs: ['n + 1', 'n - 2'], cases: [[4], [10]] },
  {
    name: 'maximum',
    params: ['a', 'b'],
    body: 'a if a > b else b',
    bugs: ['a if a < b else b'],
    cases: [
      [2, 9],
      [8, 1],
    ],
  },
  {
    name: 'minimum',
    params: ['a', 'b'],
    body: 'a if a < b else b',
    bugs: ['a if a > b else b'],
    cases: [
      [2, 9],
      [8, 1],
    ],
  },
  {
    name: 'is_even',
    params: ['n'],
    body: 'n % 2 == 0',
    bugs: ['n % 2 == 1', 'n % 3 == 0'],
    cases: [[4], [7], [9]],
  },
  { name: 'is_positive', params: ['n'], body: 'n > 0', bugs: ['n < 0', 'n >= 0'], cases: [[5], [-3], [0]] },
  { name: 'halve', params: ['n'], body: 'n // 2', bugs: ['n // 3', 'n * 2'], cases: [[8], [9]] },
  {
    name: 'remainder',
    params: ['a', 'b'],
    body: 'a % b',
    bugs: ['b % a', 'a // b'],
    cases: [
      [7, 3],
      [10, 4],
    ],
  },
  { name: 'negate', params: ['n'], body: '-n', bugs: ['n', 'n - 1'], cases: [[4], [-2]] },
];

/** Python's value of a catalogue expression, for the cases above (integers and comparisons only). */
export function evaluate(expr: string, params: string[], args: number[]): number | boolean {
  const scope = params.map((p, i) => `const ${p} = ${args[i]};`).join(' ');
  const js = expr
    .replace(/(\w+) if (.+?) else (\w+)/, '($2) ? $1 : $3')
    .replace(/(\w+) \/\/ (\w+)/, 'Math.floor($1 / $2)')
    .replace(/(\w+) % (\w+)/g, '((($1 % $2) + $2) % $2)');
  return new Function(`${scope} return ${js};`)() as number | boolean;
}
