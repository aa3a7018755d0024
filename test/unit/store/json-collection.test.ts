import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonCollection } from '../../../src/store/json-collection';
import { WrapperStore } from '../../../src/store/wrapper-store';
import { makeTmpHome } from '../../helpers/tmp-home';

describe('JsonCollection shared by two processes (two instances here)', () => {
  let home: ReturnType<typeof makeTmpHome>;
  beforeEach(() => (home = makeTmpHome()));
  afterEach(() => home.cleanup());

  it('sees a change made by the other instance on the next get, and loses no update', () => {
    const path = join(home.home, 'c.json');
    const lock = join(home.home, '.lock');
    const a = new JsonCollection<{ n: number[] }>(path, lock, () => ({ n: [] }));
    const b = new JsonCollection<{ n: number[] }>(path, lock, () => ({ n: [] }));
    expect(a.get()).toEqual({ n: [] });
    b.update((d) => d.n.push(1));
    expect(a.get()).toEqual({ n: [1] });
    a.update((d) => d.n.push(2));
    b.update((d) => d.n.push(3));
    expect(a.get().n).toEqual([1, 2, 3]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('WrapperStore', () => {
  let home: ReturnType<typeof makeTmpHome>;
  beforeEach(() => (home = makeTmpHome()));
  afterEach(() => home.cleanup());

  it('stores only a hash, authenticates in constant time, refuses revoked keys at once', () => {
    const path = join(home.home, 'wrappers.json');
    const cli = new WrapperStore(path, join(home.home, '.lock'));
    const service = new WrapperStore(path, join(home.home, '.lock'));
    const { record, secret } = cli.create({ name: 'app', credentials: null, now: new Date('2026-11-22T10:00:00Z') });
    expect(record.key).toMatch(/^wrp_[A-Za-z0-9_-]{16}$/);
    expect(secret).toMatch(/^wsec_[A-Za-z0-9_-]{43}$/); // 32 random bytes
    expect(readFileSync(path, 'utf8')).not.toContain(secret.slice(5));
    expect(service.authenticate(record.key, secret)?.name).toBe('app');
    expect(service.authenticate(record.key, secret + 'x')).toBeNull();
    expect(service.authenticate('wrp_unknown', secret)).toBeNull();
    cli.revoke(record.key, new Date('2026-11-22T10:01:00Z'));
    expect(service.authenticate(record.key, secret)).toBeNull();
    expect(() => cli.revoke('wrp_nope', new Date())).toThrow(/no wrapper key wrp_nope/);
  });

  it('keeps an empty --credential list meaning all credentials', () => {
    const s = new WrapperStore(join(home.home, 'w.json'), join(home.home, '.lock'));
    expect(s.create({ name: 'a', credentials: [], now: new Date() }).record.credentials).toBeNull();
    expect(s.create({ name: 'b', credentials: ['k1'], now: new Date() }).record.credentials).toEqual(['k1']);
  });
});
