import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSseData } from './parse-sse.ts';

describe('parseSseData', () => {
  it('splits events on blank lines and joins multi-line data', () => {
    const stream = 'data: {"a":1}\n\ndata: first\ndata: second\n\ndata: [DONE]\n\n';
    assert.deepEqual(parseSseData(stream), ['{"a":1}', 'first\nsecond', '[DONE]']);
  });

  it('accepts CRLF and CR line ends, comments and other fields', () => {
    const stream = ': keep-alive\r\nevent: message\r\nid: 7\r\ndata:x\r\n\r\ndata: y\r\r';
    assert.deepEqual(parseSseData(stream), ['x', 'y']);
  });

  it('keeps all but the first space after the colon', () => {
    assert.deepEqual(parseSseData('data:  two spaces\n\n'), [' two spaces']);
  });

  it('drops an event cut off before its blank line', () => {
    assert.deepEqual(parseSseData('data: whole\n\ndata: cut'), ['whole']);
  });
});
