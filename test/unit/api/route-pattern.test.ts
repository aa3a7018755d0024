import { describe, expect, it } from 'vitest';
import { routePattern } from '../../../src/api/app';

describe('routePattern: a route path as a regular expression', () => {
  it('matches literal characters only as themselves', () => {
    const p = routePattern('/openapi.json');
    expect(p.test('/openapi.json')).toBe(true);
    expect(p.test('/openapiXjson')).toBe(false);
    expect(p.test('/openapi.json/')).toBe(false);
    expect(routePattern('/a+b(c)[d]$e^f|g?h*').test('/a+b(c)[d]$e^f|g?h*')).toBe(true);
    expect(routePattern('/a+b').test('/aab')).toBe(false);
  });
  it('matches a :param as exactly one non-empty segment', () => {
    const p = routePattern('/v1/results/:request_id');
    expect(p.test('/v1/results/req_1')).toBe(true);
    expect(p.test('/v1/results/')).toBe(false);
    expect(p.test('/v1/results/a/b')).toBe(false);
  });
});
