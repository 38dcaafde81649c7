import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelayMs, parseRetryAfterMs, type RetryPolicy, retryDelayMs } from './retry-policy.ts';

const policy: RetryPolicy = { maxRetries: 3, initialDelayMs: 100, maxDelayMs: 1000 };

describe('backoffDelayMs', () => {
  it('doubles the ceiling each retry and keeps half of it fixed', () => {
    assert.equal(
      backoffDelayMs(0, policy, () => 0),
      50,
    );
    assert.equal(
      backoffDelayMs(0, policy, () => 1),
      100,
    );
    assert.equal(
      backoffDelayMs(2, policy, () => 0),
      200,
    );
    assert.equal(
      backoffDelayMs(2, policy, () => 1),
      400,
    );
  });

  it('caps the delay at maxDelayMs', () => {
    assert.equal(
      backoffDelayMs(10, policy, () => 1),
      1000,
    );
  });
});

describe('parseRetryAfterMs', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': '2' })), 2000);
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': '1', 'retry-after-ms': '250' })), 250);
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    assert.equal(
      parseRetryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:03 GMT' }), now),
      3000,
    );
  });

  it('ignores absent or unreadable values', () => {
    assert.equal(parseRetryAfterMs(new Headers()), undefined);
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after': 'soon' })), undefined);
    assert.equal(parseRetryAfterMs(new Headers({ 'retry-after-ms': '-5', 'retry-after': '1' })), 1000);
  });
});

describe('retryDelayMs', () => {
  it('waits at least what the server asked', () => {
    assert.equal(
      retryDelayMs(0, policy, 700, () => 0),
      700,
    );
    assert.equal(
      retryDelayMs(0, policy, 10, () => 0),
      50,
    );
  });

  it('stops when retries are used up or the server wants more than maxDelayMs', () => {
    assert.equal(retryDelayMs(3, policy, undefined), undefined);
    assert.equal(retryDelayMs(0, policy, 5000), undefined);
  });
});
