import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CATALOGUE, evaluate } from './catalogue.ts';
import { renderMicroDataset } from './generate.ts';

describe('micro tasks', () => {
  it('the committed files are current (regenerate with node --import tsx datasets/micro/build.ts)', () => {
    const { train, heldout } = renderMicroDataset();
    assert.equal(readFileSync(new URL('train.jsonl', import.meta.url), 'utf8'), train);
    assert.equal(readFileSync(new URL('heldout.jsonl', import.meta.url), 'utf8'), heldout);
  });

  it('held-out tasks are not training tasks', () => {
    const { train, heldout } = renderMicroDataset();
    const files = (jsonl: string) =>
      new Set(
        jsonl
          .trim()
          .split('\n')
          .map((l) => JSON.stringify(JSON.parse(l).extra_info.files)),
      );
    const t = files(train);
    for (const f of files(heldout)) assert.ok(!t.has(f));
  });

  it('computes every catalogue expression as Python does', () => {
    const exprs = CATALOGUE.flatMap((f) =>
      [f.body, ...f.bugs].flatMap((e) => f.cases.map((c) => ({ f, e, c }))),
    );
    const program = exprs
      .map(({ f, e, c }) => `print((lambda ${f.params.join(', ')}: ${e})(${c.join(', ')}))`)
      .join('\n');
    const python = execFileSync('python3', ['-c', program], { encoding: 'utf8' }).trim().split('\n');
    const ours = exprs.map(({ f, e, c }) => {
      const v = evaluate(e, f.params, c);
      return typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v);
    });
    assert.deepEqual(ours, python);
  });
});
