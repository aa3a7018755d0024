/**
 * pades/sign/dss.ts on its own: the update appends (input a byte-exact prefix), qpdf reads it, a second
 * DSS update extends the first (each certificate stored once, both VRI entries kept), and the VRI
 * key is the upper-case SHA-1 of the /Contents string (ETSI EN 319 142-1 §5.4.2.2).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addDss, vriKey } from '../../../../src/pades/sign/dss';
import { readDss } from '../../../helpers/dss-reader';
import { CORPUS_DIR } from '../../../helpers/pdf-corpus';
import { qpdfCheck } from '../../../helpers/pdf-tools';
import { tempDir } from '../../../helpers/temp-dir';

const cert = (n: number) => Uint8Array.of(0x30, 0x03, 0x02, 0x01, n); // stand-ins: the DSS stores bytes as given

describe('addDss', () => {
  it.each(['pdflib-xref-table.pdf', 'pdflib-xref-stream.pdf', 'qpdf-object-streams.pdf'])('%s: appends, extends, dedupes', async (name) => {
    const input = new Uint8Array(readFileSync(join(CORPUS_DIR, name)));
    const sigA = new Uint8Array(64).fill(0xa1);
    const sigB = new Uint8Array(64).fill(0xb2);
    const first = addDss(input, { certs: [cert(1), cert(2)], ocsps: [cert(3)], crls: [] }, [{ signatureContents: sigA, certs: [cert(1)], ocsps: [cert(3)], crls: [] }]);
    expect(Buffer.compare(first.subarray(0, input.length), input)).toBe(0);
    const second = addDss(first, { certs: [cert(2), cert(4)], ocsps: [], crls: [cert(5)] }, [{ signatureContents: sigB, certs: [cert(4)], ocsps: [], crls: [cert(5)] }]);
    expect(Buffer.compare(second.subarray(0, first.length), first)).toBe(0);
    const dss = (await readDss(second))!;
    expect(dss.certs.map((c) => c[4])).toEqual([1, 2, 4]);
    expect(dss.ocsps.map((c) => c[4])).toEqual([3]);
    expect(dss.crls.map((c) => c[4])).toEqual([5]);
    expect(Object.fromEntries(dss.vri)).toEqual({
      [vriKey(sigA)]: { cert: 1, ocsp: 1, crl: 0 },
      [vriKey(sigB)]: { cert: 1, ocsp: 0, crl: 1 },
    });
    expect(vriKey(sigA)).toBe(createHash('sha1').update(sigA).digest('hex').toUpperCase());
    const file = join(tempDir('localsign-dss-'), name);
    writeFileSync(file, second);
    expect((await qpdfCheck(file)).ok).toBe(true);
  });
});
