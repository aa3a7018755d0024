import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../../src/domain/errors';
import { DiskQuota } from '../../../src/requests/disk-quota';

const HOUR = 3_600_000;

describe('DiskQuota', () => {
  it("counts an application's results and its audit records of the last 24 hours, and refuses it alone beyond the quota", () => {
    const results = new Map<string, number>([['wrp_a', 600]]);
    const quota = new DiskQuota(1000, (k) => results.get(k) ?? 0);
    const t0 = 100 * HOUR;
    quota.addAudit('wrp_a', 300, t0);
    expect(quota.usedBy('wrp_a', t0)).toBe(900);
    expect(() => quota.check('wrp_a', t0)).not.toThrow();
    quota.addAudit('wrp_a', 100, t0 + 1);
    const refused = (() => {
      try {
        quota.check('wrp_a', t0 + 2);
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).toBe(600);
    expect((refused as Error).message).toMatch(/^this application key holds 0 MiB of results and of the last 24 hours' audit records, its disk quota is 0 MiB \(serve --disk-quota\)/);
    // Another application is not affected; an unknown one holds nothing.
    expect(() => quota.check('wrp_b', t0)).not.toThrow();
    // A day later the audit hours have aged out; the results stay until retention drops them.
    expect(quota.usedBy('wrp_a', t0 + 25 * HOUR)).toBe(600);
    results.set('wrp_a', 0);
    expect(() => quota.check('wrp_a', t0 + 25 * HOUR)).not.toThrow();
  });

  it('0 is no quota; a record without an application counts for none', () => {
    const quota = new DiskQuota(0, () => 10 ** 12);
    expect(() => quota.check('wrp_a', 0)).not.toThrow();
    quota.addAudit(null, 100, 0);
    expect(quota.usedBy('wrp_a', 0)).toBe(10 ** 12);
  });
});
