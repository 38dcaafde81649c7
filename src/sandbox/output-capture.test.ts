import assert from 'node:assert/strict';
import { constants } from 'node:buffer';
import { describe, it } from 'node:test';
import {
  completeUtf8Prefix,
  firstUtf8Boundary,
  floodLimitBytes,
  MAX_TEXT_BYTES,
  OutputCapture,
  truncationMarker,
} from './output-capture.ts';

const b = (s: string) => Buffer.from(s, 'utf8');

describe('OutputCapture', () => {
  it('keeps everything under the cap, streams apart', () => {
    const c = new OutputCapture(100);
    c.push('stdout', b('out1 '));
    c.push('stderr', b('err1 '));
    c.push('stdout', b('out2'));
    assert.deepEqual(c.result(), { stdout: 'out1 out2', stderr: 'err1 ', truncated: false });
  });

  it('keeps output of exactly the cap whole', () => {
    const c = new OutputCapture(10);
    c.push('stdout', b('0123456789'));
    assert.deepEqual(c.result(), { stdout: '0123456789', stderr: '', truncated: false });
  });

  it('keeps the head and the tail of one stream with a marker counting the dropped bytes', () => {
    const c = new OutputCapture(10);
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') c.push('stdout', b(ch));
    assert.deepEqual(c.result(), {
      stdout: `abcde${truncationMarker(16)}vwxyz`,
      stderr: '',
      truncated: true,
    });
  });

  it('cuts one big chunk the same way as many small ones', () => {
    const c = new OutputCapture(10);
    c.push('stdout', b('abcdefghijklmnopqrstuvwxyz'));
    assert.equal(c.result().stdout, `abcde${truncationMarker(16)}vwxyz`);
  });

  it('shares the budget between the streams in arrival order', () => {
    const c = new OutputCapture(8);
    c.push('stdout', b('OOO'));
    c.push('stderr', b('EEEEEE'));
    c.push('stdout', b('ooooo'));
    c.push('stderr', b('ee'));
    // head (4 bytes): OOO + E; tail (4 bytes): ooee
    const r = c.result();
    assert.equal(r.stdout, `OOO${truncationMarker(3)}oo`);
    assert.equal(r.stderr, `E${truncationMarker(5)}ee`);
    assert.equal(r.truncated, true);
  });

  it('leaves a stream that lost nothing unmarked', () => {
    const c = new OutputCapture(6);
    c.push('stderr', b('E'));
    c.push('stdout', b('0123456789'));
    const r = c.result();
    assert.equal(r.stderr, 'E');
    assert.equal(r.stdout, `01${truncationMarker(5)}789`);
  });

  it('never splits a UTF-8 character, counting its bytes as dropped', () => {
    const c = new OutputCapture(6);
    c.push('stdout', b('aé€bcdef€'));
    // bytes: a(1) é(2) €(3) b c d e f €(3) = 14; head 3 = "aé", tail 3 = "€"
    assert.equal(c.result().stdout, `aé${truncationMarker(8)}€`);
    const d = new OutputCapture(4);
    d.push('stdout', b('€€€'));
    // head 2 bytes split € → nothing kept; tail 2 bytes split € → nothing kept
    assert.equal(d.result().stdout, truncationMarker(9));
  });

  it('keeps what a string can hold under a cap beyond it, reporting truncation (no ERR_STRING_TOO_LONG)', () => {
    assert.ok(MAX_TEXT_BYTES < constants.MAX_STRING_LENGTH);
    const c = new OutputCapture(2 ** 40, 10);
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') c.push('stdout', b(ch));
    assert.deepEqual(c.result(), {
      stdout: `abcde${truncationMarker(16)}vwxyz`,
      stderr: '',
      truncated: true,
    });
  });

  it('with a cap of zero keeps only markers', () => {
    const c = new OutputCapture(0);
    c.push('stdout', b('x'));
    assert.deepEqual(c.result(), { stdout: truncationMarker(1), stderr: '', truncated: true });
  });

  it('reports flooding beyond the flood limit', () => {
    const c = new OutputCapture(1024);
    const chunk = Buffer.alloc(1024 * 1024, 120);
    let n = 0;
    while (!c.flooded) {
      c.push('stdout', chunk);
      n++;
    }
    assert.equal(n * chunk.length > floodLimitBytes(1024), true);
    assert.equal((n - 1) * chunk.length <= floodLimitBytes(1024), true);
    assert.equal(c.result().stdout.length < 2100, true);
  });

  it('rejects a negative or fractional cap', () => {
    assert.throws(() => new OutputCapture(-1), /non-negative integer/);
    assert.throws(() => new OutputCapture(1.5), /non-negative integer/);
  });
});

describe('UTF-8 boundaries', () => {
  it('completeUtf8Prefix drops an unfinished last character only', () => {
    assert.equal(completeUtf8Prefix(b('ab')), 2);
    assert.equal(completeUtf8Prefix(b('a€')), 4);
    assert.equal(completeUtf8Prefix(b('a€').subarray(0, 3)), 1);
    assert.equal(completeUtf8Prefix(b('😀').subarray(0, 3)), 0);
    assert.equal(completeUtf8Prefix(Buffer.alloc(0)), 0);
  });

  it('firstUtf8Boundary skips leading continuation bytes', () => {
    assert.equal(firstUtf8Boundary(b('€a').subarray(1)), 2);
    assert.equal(firstUtf8Boundary(b('ab')), 0);
    assert.equal(firstUtf8Boundary(b('😀').subarray(1)), 3);
  });
});
