/**
 * The lint is graded against a reference signature built here with forge and node:crypto only
 * (no engine code), which pdfsig, mutool and openssl must also accept; each mutation of it must
 * then produce exactly the expected problem.
 */
import { createHash, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import { beforeAll, describe, expect, it } from 'vitest';
import { isPdfDate, lintPadesBaselineB } from '../../helpers/pades-lint';
import { CORPUS_DIR } from '../../helpers/pdf-corpus';
import { extractCms, mutoolVerify, opensslCmsVerify, runPdfsig } from '../../helpers/pdf-tools';
import { createTestPki, type TestPki } from '../../helpers/test-pki';
import { tempDir } from '../../helpers/temp-dir';

const { asn1 } = forge;
const A = { U: asn1.Class.UNIVERSAL, C: asn1.Class.CONTEXT_SPECIFIC, T: asn1.Type };
const oid = (o: string) => asn1.create(A.U, A.T.OID, false, asn1.oidToDer(o).getBytes());
const octets = (b: Uint8Array | string) =>
  asn1.create(A.U, A.T.OCTETSTRING, false, typeof b === 'string' ? b : Buffer.from(b).toString('latin1'));
const seq = (...v: forge.asn1.Asn1[]) => asn1.create(A.U, A.T.SEQUENCE, true, v);
const set = (...v: forge.asn1.Asn1[]) => asn1.create(A.U, A.T.SET, true, v);
const toDer = (n: forge.asn1.Asn1) => Buffer.from(asn1.toDer(n).getBytes(), 'latin1');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();
const SHA256_ALG = seq(oid('2.16.840.1.101.3.4.2.1'), asn1.create(A.U, A.T.NULL, false, ''));

interface Mutation {
  subFilter?: string;
  m?: string | null;
  type?: string;
  omit?: 'content-type' | 'message-digest' | 'signing-certificate-v2' | 'certificates';
  signingTime?: boolean;
  eContent?: boolean;
  twoSigners?: boolean;
  wrongCertHash?: boolean;
  gapShift?: number;
}

let pki: TestPki;
let work: string;
const base = readFileSync(join(CORPUS_DIR, 'hand-signature-field.pdf'));

beforeAll(async () => {
  pki = await createTestPki({ algorithm: 'rsa' });
  work = tempDir('localsign-lint-');
});

function buildCms(content: Uint8Array, mut: Mutation): Buffer {
  const signer = asn1.fromDer(Buffer.from(pki.chain[0]!).toString('latin1'));
  const tbs = signer.value[0] as forge.asn1.Asn1;
  const [serial, , issuer] = (tbs.value as forge.asn1.Asn1[]).slice(1);
  const attr = (o: string, v: forge.asn1.Asn1) => seq(oid(o), set(v));
  const certHash = mut.wrongCertHash ? sha256(Buffer.from('other')) : sha256(pki.chain[0]!);
  const attrs = [
    mut.omit === 'content-type' ? null : attr('1.2.840.113549.1.9.3', oid('1.2.840.113549.1.7.1')),
    mut.omit === 'message-digest' ? null : attr('1.2.840.113549.1.9.4', octets(sha256(content))),
    mut.omit === 'signing-certificate-v2' ? null : attr('1.2.840.113549.1.9.16.2.47', seq(seq(seq(octets(certHash))))),
    mut.signingTime ? attr('1.2.840.113549.1.9.5', asn1.create(A.U, A.T.UTCTIME, false, '261122100000Z')) : null,
  ].filter((a): a is forge.asn1.Asn1 => a !== null);
  // RFC 5652 §5.4: the signature covers the DER SET OF, whose members are sorted (X.690 §11.6).
  attrs.sort((a, b) => Buffer.compare(toDer(a), toDer(b)));
  const signature = sign('sha256', toDer(set(...attrs)), pki.signerKeyPem);
  const signerInfo = seq(
    asn1.create(A.U, A.T.INTEGER, false, '\x01'),
    seq(issuer!, serial!),
    SHA256_ALG,
    asn1.create(A.C, 0, true, attrs),
    seq(oid('1.2.840.113549.1.1.1'), asn1.create(A.U, A.T.NULL, false, '')),
    octets(signature),
  );
  const certs = pki.chain.map((c) => asn1.fromDer(Buffer.from(c).toString('latin1')));
  const encap = mut.eContent
    ? seq(oid('1.2.840.113549.1.7.1'), asn1.create(A.C, 0, true, [octets('x')]))
    : seq(oid('1.2.840.113549.1.7.1'));
  const signedData = seq(
    asn1.create(A.U, A.T.INTEGER, false, '\x01'),
    set(SHA256_ALG),
    encap,
    ...(mut.omit === 'certificates' ? [] : [asn1.create(A.C, 0, true, certs)]),
    mut.twoSigners ? set(signerInfo, signerInfo) : set(signerInfo),
  );
  return toDer(seq(oid('1.2.840.113549.1.7.2'), asn1.create(A.C, 0, true, [signedData])));
}

/** Fills the empty field of hand-signature-field.pdf in an incremental update (ISO 32000-1 §12.8). */
function signReference(mut: Mutation = {}): Buffer {
  const prev = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(base.toString('latin1'))![1];
  const hexLen = 16384;
  const m = mut.m === null ? '' : ` /M (${mut.m ?? "D:20261122100000+00'00'"})`;
  const field = '6 0 obj\n<< /Type /Annot /Subtype /Widget /FT /Sig /T (OtherTool) /Rect [0 0 0 0] /F 132 /P 3 0 R /V 7 0 R >>\nendobj\n';
  const sigHead = `7 0 obj\n<< /Type /${mut.type ?? 'Sig'} /Filter /Adobe.PPKLite /SubFilter /${mut.subFilter ?? 'ETSI.CAdES.detached'}${m} /ByteRange [0 ########## ########## ##########] /Contents <`;
  const update = `${field}${sigHead}${'0'.repeat(hexLen)}> >>\nendobj\n`;
  const fieldAt = base.length;
  const sigAt = fieldAt + field.length;
  const xrefAt = base.length + update.length;
  const tail = `xref\n0 1\n0000000000 65535 f\r\n6 2\n${String(fieldAt).padStart(10, '0')} 00000 n\r\n${String(sigAt).padStart(10, '0')} 00000 n\r\ntrailer\n<< /Size 8 /Root 1 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  const pdf = Buffer.concat([base, Buffer.from(update + tail, 'latin1')]);
  const lt = sigAt + sigHead.length - 1; // offset of '<'
  const gt = lt + hexLen + 1;
  const br = [0, lt + (mut.gapShift ?? 0), gt + 1, pdf.length - gt - 1];
  const brText = br.slice(1).map((n) => String(n).padEnd(10, ' ')).join(' ');
  pdf.write(`[0 ${brText}]`, pdf.indexOf('[0 ##########'), 'latin1');
  const content = Buffer.concat([pdf.subarray(0, br[1]), pdf.subarray(br[2]!)]);
  pdf.write(buildCms(content, mut).toString('hex'), lt + 1, 'latin1');
  return pdf;
}

const problemsOf = (pdf: Uint8Array) => lintPadesBaselineB(pdf).problems;

describe('lintPadesBaselineB on a reference B-B signature', () => {
  it('accepts it, and so do pdfsig, mutool and openssl', async () => {
    const pdf = signReference();
    expect(lintPadesBaselineB(pdf)).toEqual({ ok: true, problems: [], signatures: 1 });
    const file = join(work, 'reference.pdf');
    writeFileSync(file, pdf);
    const sig = (await runPdfsig(file)).signatures;
    expect(sig).toHaveLength(1);
    expect(sig[0]).toMatchObject({ signatureValid: true, coversWholeDocument: true, subFilter: 'ETSI.CAdES.detached', signerCommonName: 'Test Signer', hashAlgorithm: 'SHA-256' });
    expect((await mutoolVerify(file)).signatures).toMatchObject([{ objectNumber: 6, digest: 'unchanged' }]);
    const { cms, signedBytes } = extractCms(pdf, 0);
    expect((await opensslCmsVerify(cms, signedBytes, pki.caCertPath)).ok).toBe(true);
    expect((await opensslCmsVerify(cms, signedBytes.subarray(1), pki.caCertPath)).ok).toBe(false);
  });

  it.each<[string, Mutation, string]>([
    ['signing-time present', { signingTime: true }, 'signed attribute signing-time is present (PAdES puts the time in /M)'],
    ['no content-type', { omit: 'content-type' }, 'signed attribute content-type is missing'],
    ['no message-digest', { omit: 'message-digest' }, 'signed attribute message-digest is missing'],
    ['no signing-certificate-v2', { omit: 'signing-certificate-v2' }, 'signed attribute signing-certificate-v2 is missing'],
    ['no certificates', { omit: 'certificates' }, 'signer certificate is not among the CMS certificates'],
    ['wrong certificate hash', { wrongCertHash: true }, 'signing-certificate-v2 hash does not match the signer certificate'],
    ['eContent present', { eContent: true }, 'CMS is not detached: eContent is present'],
    ['two SignerInfos', { twoSigners: true }, 'CMS has 2 SignerInfos, expected exactly 1'],
    ['adbe SubFilter', { subFilter: 'adbe.pkcs7.detached' }, '/SubFilter is /adbe.pkcs7.detached, expected /ETSI.CAdES.detached'],
    ['no /M', { m: null }, '/M (signing time) is missing'],
    ['bad /M', { m: 'D:20261322100000Z' }, '/M "D:20261322100000Z" is not a PDF date'],
    ['wrong /Type', { type: 'Annot' }, '/Type is /Annot, expected /Sig'],
  ])('reports %s', (_label, mut, problem) => {
    expect(problemsOf(signReference(mut))).toEqual([`signature 1: ${problem}`]);
  });

  it('reports a ByteRange gap that is not exactly /Contents', () => {
    const pdf = signReference({ gapShift: -1 });
    const [, gap] = /gap (\d+)\.\.(\d+)/.exec(problemsOf(pdf)[0] ?? '') ?? [];
    expect(problemsOf(pdf)).toEqual([`signature 1: /ByteRange gap ${gap}..${Number(gap) + 16386 + 1} is not /Contents at ${Number(gap) + 1}..${Number(gap) + 16386 + 1}`]);
  });

  it('reports bytes after the last signed range and a changed byte', () => {
    const pdf = signReference();
    const appended = Buffer.concat([pdf, Buffer.from('%extra\n')]);
    expect(problemsOf(appended)).toEqual([`signature 1: /ByteRange of the last signature ends at ${pdf.length}, not at EOF (${appended.length})`]);
    const tampered = Buffer.from(pdf);
    tampered[tampered.indexOf('Signed by another tool')] = 0x58;
    expect(problemsOf(tampered)).toEqual(['signature 1: message-digest does not equal SHA-256 of the /ByteRange bytes']);
  });
});

describe('lintPadesBaselineB on other files', () => {
  it('lists every B-B deviation of the mutool (adbe.pkcs7.detached, SHA-1) signature', () => {
    const pdf = readFileSync(join(CORPUS_DIR, 'mutool-signed.pdf'));
    expect(lintPadesBaselineB(pdf)).toEqual({
      ok: false,
      signatures: 1,
      problems: [
        'signature 1: /SubFilter is /adbe.pkcs7.detached, expected /ETSI.CAdES.detached',
        'signature 1: digest algorithm is 1.3.14.3.2.26, expected SHA-256',
        'signature 1: signed attribute signing-time is present (PAdES puts the time in /M)',
        'signature 1: signed attribute signing-certificate-v2 is missing',
      ],
    });
  });

  it('finds no signature in an unsigned file, nor in a content stream that mentions /ByteRange', () => {
    const pdf = readFileSync(join(CORPUS_DIR, 'hand-hybrid-xref.pdf'));
    expect(lintPadesBaselineB(pdf)).toEqual({ ok: false, problems: ['no signature dictionary (/ByteRange) found'], signatures: 0 });
    const tricky = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Length 30 >>\nstream\n/ByteRange [0 1 2 3] /Contents <00>\nendstream\nendobj\n', 'latin1');
    expect(lintPadesBaselineB(tricky).signatures).toBe(0);
  });
});

describe('isPdfDate (ISO 32000-1 §7.9.4)', () => {
  it.each([
    ["D:20261122100000+01'00'", true],
    ["D:20261122100000+01'00", true],
    ['D:20261122100000Z', true],
    ['D:2026', true],
    ['D:202611221000', true],
    ['D:20261322100000Z', false],
    ['D:20261122250000Z', false],
    ['20261122100000Z', false],
    ['D:2026-11-22', false],
  ])('%s -> %s', (text, ok) => {
    expect(isPdfDate(text)).toBe(ok);
  });
});
