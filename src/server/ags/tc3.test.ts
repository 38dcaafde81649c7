import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import {
  canonicalRequest,
  parseTc3Authorization,
  signaturesEqual,
  type Tc3Input,
  tc3Signature,
} from './tc3.ts';

// Tencent Cloud's published TC3-HMAC-SHA256 example (cloud.tencent.com/document/api/213/30654, "签名方法
// v3"): a CVM DescribeInstances call, its documented inputs and the signature the page gives for them.
const DOC_EXAMPLE: Tc3Input = {
  method: 'POST',
  path: '/',
  query: '',
  headers: { 'content-type': 'application/json; charset=utf-8', host: 'cvm.tencentcloudapi.com' },
  signedHeaders: ['content-type', 'host'],
  body: '{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}',
  timestamp: 1551113065,
  service: 'cvm',
};
const DOC_SECRET_KEY = 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE';

test('TC3: the documented example gives the documented canonical request hash and signature', () => {
  assert.equal(
    createHash('sha256').update(canonicalRequest(DOC_EXAMPLE)).digest('hex'),
    '5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031',
  );
  assert.equal(
    tc3Signature(DOC_EXAMPLE, DOC_SECRET_KEY),
    '72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168',
  );
});

test('TC3: a changed body, timestamp or key gives another signature', () => {
  const good = tc3Signature(DOC_EXAMPLE, DOC_SECRET_KEY);
  assert.notEqual(tc3Signature({ ...DOC_EXAMPLE, body: `${DOC_EXAMPLE.body} ` }, DOC_SECRET_KEY), good);
  assert.notEqual(
    tc3Signature({ ...DOC_EXAMPLE, timestamp: DOC_EXAMPLE.timestamp + 1 }, DOC_SECRET_KEY),
    good,
  );
  assert.notEqual(tc3Signature(DOC_EXAMPLE, `${DOC_SECRET_KEY}x`), good);
  assert.ok(signaturesEqual(good, good));
  assert.ok(!signaturesEqual(good, good.slice(1)));
});

test('TC3: the Authorization header parses, malformed ones do not', () => {
  const sig = 'a'.repeat(64);
  assert.deepEqual(
    parseTc3Authorization(
      `TC3-HMAC-SHA256 Credential=AKIDEXAMPLE/2019-02-25/cvm/tc3_request, SignedHeaders=content-type;host, Signature=${sig}`,
    ),
    {
      secretId: 'AKIDEXAMPLE',
      date: '2019-02-25',
      service: 'cvm',
      signedHeaders: ['content-type', 'host'],
      signature: sig,
    },
  );
  assert.equal(parseTc3Authorization('Bearer x'), undefined);
  assert.equal(
    parseTc3Authorization(`TC3-HMAC-SHA256 Credential=A/2019-02-25/cvm/tc3_request, Signature=${sig}`),
    undefined,
  );
});
