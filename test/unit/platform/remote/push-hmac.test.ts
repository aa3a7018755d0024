import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPush, verifyPush } from '../../../../src/platform/remote/push-hmac';

describe('push HMAC (PLATFORM.md)', () => {
  const secret = 'agent-secret-ü';
  const body = Buffer.from('{"request_id":"req_1","status":"DONE"}');
  const ts = '1795000000';

  it('is HMAC-SHA256(utf8 secret, timestamp "." raw body) in lowercase hex', () => {
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${ts}.${body.toString()}`).digest('hex');
    expect(signPush(secret, ts, body)).toBe(`sha256=${expected}`);
  });

  it('accepts the right signature within 300 s and refuses everything else', () => {
    const sig = signPush(secret, ts, body);
    const base = { agentSecret: secret, timestamp: ts, signature: sig, rawBody: body, nowSeconds: 1795000000 };
    expect(verifyPush(base)).toBe(true);
    expect(verifyPush({ ...base, nowSeconds: 1795000300 })).toBe(true);
    expect(verifyPush({ ...base, nowSeconds: 1795000301 })).toBe(false);
    expect(verifyPush({ ...base, signature: sig.toUpperCase() })).toBe(false);
    expect(verifyPush({ ...base, rawBody: Buffer.from(body.toString() + ' ') })).toBe(false);
    expect(verifyPush({ ...base, agentSecret: null })).toBe(false);
    expect(verifyPush({ ...base, signature: undefined })).toBe(false);
    expect(verifyPush({ ...base, timestamp: '1795000000.0' })).toBe(false);
  });
});
