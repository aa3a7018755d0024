/**
 * NIST PKITS (../shared/vectors/pkits/README.md: google/boringssl a0689af2, pki/testdata/nist-pkits/) sections 4.1-4.7, 4.13 and 4.16 through buildPath:
 * trust anchor "Trust Anchor Root Certificate", the case's intermediates as the pool, the end
 * entity as the leaf, judged on a fixed date inside the certificates' validity. Every case of those
 * sections is either run and must agree with PKITS, or listed below as skipped with its reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPath } from '../../../src/pki/chain';
import { NO_OUTSIDE_VECTORS, outsideVectors } from '../../helpers/outside-vectors';

interface PkitsCase {
  id: string;
  title: string;
  /** Trust anchor first, end entity last (PKITS.pdf order). */
  certificates: string[];
  crls: string[];
  valid: boolean;
}

const DIR = outsideVectors('pkits');
const CASES = DIR ? (JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8')) as PkitsCase[]) : [];
/** Inside every PKITS certificate's validity (2010-01-01 to 2030-12-31) but those that 4.2 makes wrong on purpose. */
const AT = new Date('2021-01-01T00:00:00Z');

const REVOCATION = 'needs revocation checking (CRLs): buildPath judges the path; the status comes from pki/crl.ts and pades/validate/revocation-status.ts';
const DSA = 'DSA signatures are not supported (as in Chromium); the refusal is checked by name below';
/** Every case of the sections that is not run, with why. */
const SKIPPED: Record<string, string> = {
  '4.1.4': DSA,
  '4.1.5': DSA,
  '4.1.6': DSA,
  ...Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`4.4.${i + 1}`, `${REVOCATION} (4.4 Basic Certificate Revocation Tests)`])),
  '4.5.2': `${REVOCATION}: the end entity is revoked`,
  '4.5.5': `${REVOCATION}: the end entity is revoked`,
  '4.5.7': `${REVOCATION}: the end entity is revoked`,
  '4.7.4': `${REVOCATION}: the CRL issuer lacks cRLSign`,
  '4.7.5': `${REVOCATION}: the CRL issuer lacks cRLSign`,
};

/** What the failures of each invalid case must name: the reason PKITS.pdf gives for it. */
function expectedReason(id: string): RegExp {
  if (id === '4.1.2' || id === '4.1.3') return /^signature of .* does not verify with the key of /;
  if (id.startsWith('4.2.')) return / (is not valid before|expired on) /;
  if (id.startsWith('4.3.')) return /^no issuer certificate for /;
  if (id === '4.5.8') return /has a keyUsage without keyCertSign/;
  if (['4.6.1', '4.6.2', '4.6.3'].includes(id)) return /^issuer .* is not a CA \(basicConstraints\)$/;
  if (id.startsWith('4.6.')) return /^certificate .*: pathLenConstraint \d of .* exceeded$/;
  if (id.startsWith('4.7.')) return /^issuer .* has a keyUsage without keyCertSign$/;
  if (id.startsWith('4.13.')) return /^certificate .*: .* (is not within the permitted|is within an excluded) (directoryName|rfc822Name|dNSName|uniformResourceIdentifier) subtrees? of /;
  if (id === '4.16.2') return /^certificate .*: unknown critical extension 2\.16\.840\.1\.101\.2\.1\.12\.2$/;
  throw new Error(`no expected reason for ${id}`);
}

const load = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DIR!, 'certs', `${name}.crt`)));

function run(c: PkitsCase): ReturnType<typeof buildPath> {
  const [anchor, ...rest] = c.certificates;
  const leaf = rest.pop()!;
  return buildPath(load(leaf), rest.map(load), [load(anchor!)], AT);
}

const RUN = CASES.filter((c) => !(c.id in SKIPPED));

describe.skipIf(!DIR)(`NIST PKITS 4.1-4.7, 4.13, 4.16 through buildPath${DIR ? '' : ` (${NO_OUTSIDE_VECTORS})`}`, () => {
  it('holds every case of those sections once: 87 run, 29 skipped by name', () => {
    const ids = CASES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^4\.(1|2|3|4|5|6|7|13|16)\.\d+$/.test(id))).toBe(true);
    expect(Object.keys(SKIPPED).filter((id) => !ids.includes(id))).toEqual([]);
    expect([CASES.length, RUN.length, Object.keys(SKIPPED).length]).toEqual([116, 87, 29]);
  });

  for (const c of RUN) {
    it(`${c.id} ${c.title}: ${c.valid ? 'valid' : 'invalid'}`, () => {
      const r = run(c);
      expect(r.policies).toBe('not checked');
      if (c.valid) {
        expect(r.failures).toEqual([]);
        expect(r.trusted).toBe(true);
        // Some cases list certificates only their CRLs need (4.5.4, 4.5.6): the path may be shorter.
        expect(r.path.length).toBeLessThanOrEqual(c.certificates.length);
        expect([r.path[0], r.path.at(-1)]).toEqual([load(c.certificates.at(-1)!), load(c.certificates[0]!)]);
      } else {
        expect(r.trusted).toBe(false);
        expect(r.failures.some((f) => expectedReason(c.id).test(f)), r.failures.join('\n')).toBe(true);
      }
    });
  }

  for (const [id, reason] of Object.entries(SKIPPED)) {
    const c = CASES.find((x) => x.id === id);
    it.skip(`${id} ${c?.title ?? ''}: skipped, ${reason}`, () => {});
  }

  it('refuses DSA paths by name (4.1.4-4.1.6)', () => {
    for (const id of ['4.1.4', '4.1.5', '4.1.6']) {
      const r = run(CASES.find((c) => c.id === id)!);
      expect(r.trusted).toBe(false);
      expect(r.failures.length).toBeGreaterThan(0);
      expect(r.failures.every((f) => f.endsWith(': DSA signatures are not supported')), r.failures.join('\n')).toBe(true);
    }
  });

  it('names each failure with the certificates involved', () => {
    const byId = (id: string): string[] => run(CASES.find((c) => c.id === id)!).failures;
    const o = 'O=Test Certificates 2011,C=US';
    expect(byId('4.6.5')).toEqual([`certificate CN=pathLenConstraint0 subCA,${o}: pathLenConstraint 0 of CN=pathLenConstraint0 CA,${o} exceeded`]);
    expect(byId('4.7.1')).toEqual([`issuer CN=keyUsage Critical keyCertSign False CA,${o} has a keyUsage without keyCertSign`]);
    expect(byId('4.13.33')).toEqual([
      `certificate CN=Invalid DNS nameConstraints EE Certificate Test33,${o}: subjectAltName dNSName invalidcertificates.gov is within an excluded dNSName subtree of CN=nameConstraints DNS2 CA,${o}`,
    ]);
    expect(byId('4.13.29')).toEqual([
      `certificate emailAddress=Test29EE@invalidcertificates.gov,CN=Invalid DN and RFC822 nameConstraints EE Certificate Test29,OU=permittedSubtree1,${o}: subject emailAddress Test29EE@invalidcertificates.gov is not within the permitted rfc822Name subtrees of CN=nameConstraints DN1 subCA3,OU=permittedSubtree1,${o}`,
    ]);
    expect(byId('4.16.2')).toEqual([`certificate CN=Invalid Unknown Critical Certificate Extension EE Cert Test2,${o}: unknown critical extension 2.16.840.1.101.2.1.12.2`]);
  });

  it('judges validity at the time asked, not at the present', () => {
    const c = CASES.find((x) => x.id === '4.1.1')!;
    const [anchor, ca, leaf] = c.certificates.map(load) as [Uint8Array, Uint8Array, Uint8Array];
    expect(buildPath(leaf, [ca], [anchor], new Date('2031-01-01T00:00:00Z')).failures).toEqual([
      'CN=Valid EE Certificate Test1,O=Test Certificates 2011,C=US expired on 2030-12-31T08:30:00.000Z',
      'CN=Good CA,O=Test Certificates 2011,C=US expired on 2030-12-31T08:30:00.000Z',
      'CN=Trust Anchor,O=Test Certificates 2011,C=US expired on 2030-12-31T08:30:00.000Z',
    ]);
  });
});
