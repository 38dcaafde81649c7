import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapFinishReason } from './map-finish-reason.ts';

describe('mapFinishReason', () => {
  it('maps the words of OpenAI, vLLM, SGLang and others', () => {
    assert.equal(mapFinishReason('stop', false), 'stop');
    assert.equal(mapFinishReason('eos', false), 'stop');
    assert.equal(mapFinishReason('length', false), 'length');
    assert.equal(mapFinishReason('max_tokens', false), 'length');
    assert.equal(mapFinishReason('tool_calls', true), 'tool_calls');
    assert.equal(mapFinishReason('function_call', true), 'tool_calls');
    assert.equal(mapFinishReason('content_filter', false), 'content_filter');
  });

  it('reports stop with tool calls as tool_calls', () => {
    assert.equal(mapFinishReason('stop', true), 'tool_calls');
  });

  it('treats abort, missing and unknown reasons as errors', () => {
    assert.equal(mapFinishReason('abort', false), 'error');
    assert.equal(mapFinishReason(null, false), 'error');
    assert.equal(mapFinishReason(undefined, false), 'error');
    assert.equal(mapFinishReason('weird', false), 'error');
  });
});
