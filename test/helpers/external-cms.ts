/**
 * Signatures made by another tool, in a PDF the engine prepared: `preparePades` writes the field,
 * the /ByteRange and a zero /Contents; `openssl cms -sign` (or a hand-made CMS) signs the bytes the
 * /ByteRange covers, and the CMS goes into /Contents as any signer's would. Test-only: spawns
 * openssl and writes to a temp dir.
 */
import { execFile } from 'node:child_process';
import { sign as cryptoSign } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { children, concat, readDerExact, TAG, type Der } from '../../src/der/der';
import { embedContents } from '../../src/pades/pdf/byterange';
import { preparePades } from '../../src/pades/sign/prepare';
import type { PreparedPades } from '../../src/pades/sign/types';
import type { TestPki } from './test-pki';
import { tempDir } from './temp-dir';

const run = promisify(execFile);

/**
 * A one-page document with fixed metadata, small enough for an encapsulating CMS to fit the room
 * reserved, and over 4096 bytes signed (`lines` of text) so that `openssl -stream` cuts the
 * content into more than one segment (it writes 4096-octet ones).
 */
export async function smallPdf(lines = 40): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  page.drawText('Signed by another tool', { x: 72, y: 770, size: 14, font });
  for (let i = 0; i < lines; i++) page.drawText(`Line ${i + 1}: the bytes of this page are what the signature covers.`, { x: 72, y: 740 - 16 * i, size: 10, font });
  return doc.save({ useObjectStreams: false });
}

export interface Placeholder {
  prepared: PreparedPades;
  /** The bytes the /ByteRange covers, joined: what an external signer signs. */
  signedBytes: Uint8Array;
}

/**
 * The engine's placeholder (room reserved as for a timestamp token: about 8 KB more), its
 * /SubFilter rewritten in place to `subFilter` (padded with spaces, inside the signed bytes).
 */
export async function placeholder(pdf: Uint8Array, pki: TestPki, subFilter = 'ETSI.CAdES.detached'): Promise<Placeholder> {
  const prepared = await preparePades({ pdf, certificateChain: pki.chain, signingTime: new Date('2026-11-22T10:00:00Z'), reserveTimestamp: true });
  const out = prepared.pdf;
  const text = Buffer.from(out.buffer, out.byteOffset, out.length);
  const at = text.indexOf('/SubFilter /ETSI.CAdES.detached', pdf.length, 'latin1');
  if (at < 0) throw new Error('no /SubFilter in the prepared signature dictionary');
  const old = '/ETSI.CAdES.detached';
  if (subFilter.length + 1 > old.length) throw new Error(`/SubFilter ${subFilter} does not fit in place`);
  text.write(`/${subFilter}`.padEnd(old.length, ' '), at + '/SubFilter '.length, 'latin1');
  const [a, b, c, d] = prepared.byteRange;
  return { prepared, signedBytes: concat([out.subarray(a, a + b), out.subarray(c, c + d)]) };
}

/** The PDF with `cms` in the placeholder's /Contents (hex, zero-padded). */
export function withCms(p: Placeholder, cms: Uint8Array): Uint8Array {
  const out = p.prepared.pdf.slice();
  embedContents(out, p.prepared.contentsOffset, p.prepared.contentsHexLength, cms);
  return out;
}

/**
 * `openssl cms -sign -binary -outform DER -md <md>` over `content` with the test PKI's signer
 * (its intermediate added with -certfile when there is one), plus `flags` (-stream, -noattr,
 * -nodetach, -cades, …).
 */
export async function opensslSign(pki: TestPki, content: Uint8Array, flags: string[], md = 'sha256'): Promise<Uint8Array> {
  const dir = tempDir('localsign-extcms-');
  try {
    writeFileSync(join(dir, 'content.bin'), content);
    const certfile = pki.chain.length > 2 ? ['-certfile', join(pki.dir, 'intermediate.pem')] : [];
    await run('openssl', [
      'cms', '-sign', '-binary', '-in', 'content.bin', '-signer', join(pki.dir, 'signer.pem'), '-inkey', join(pki.dir, 'signer.key'),
      ...certfile, '-md', md, '-outform', 'DER', '-out', 'cms.der', ...flags,
    ], { cwd: dir });
    return new Uint8Array(readFileSync(join(dir, 'cms.der')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface OpensslVerdict {
  ok: boolean;
  /** What `-out` wrote: the content as openssl saw it signed. */
  content: Uint8Array;
  raw: string;
}

/**
 * `openssl cms -verify -binary -inform DER [-content FILE] -CAfile root -purpose any`: its own
 * reading of the CMS (BER included), of the signed attributes and of the content. `content` null
 * for an encapsulating CMS.
 */
export async function opensslVerify(cms: Uint8Array, content: Uint8Array | null, caFile: string): Promise<OpensslVerdict> {
  const dir = tempDir('localsign-extcms-');
  try {
    writeFileSync(join(dir, 'cms.der'), cms);
    if (content) writeFileSync(join(dir, 'content.bin'), content);
    const args = ['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'cms.der', ...(content ? ['-content', 'content.bin'] : []),
      '-CAfile', caFile, '-purpose', 'any', '-out', 'out.bin'];
    let raw: string;
    let code = 0;
    try {
      const r = await run('openssl', args, { cwd: dir, encoding: 'latin1' });
      raw = r.stdout + r.stderr;
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; code?: number | string };
      if (e.code === 'ENOENT') throw new Error('openssl is not installed');
      raw = (e.stdout ?? '') + (e.stderr ?? '');
      code = 1;
    }
    let out = new Uint8Array(0);
    try {
      out = new Uint8Array(readFileSync(join(dir, 'out.bin')));
    } catch {
      // no output on failure
    }
    return { ok: code === 0 && /Verification successful/.test(raw), content: out, raw };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Offset of a node that is a view into `buf`. */
const offsetIn = (buf: Uint8Array, node: Der): number => node.raw.byteOffset - buf.byteOffset;

/** The SignerInfo of a DER CMS (one signer): its fields as views into `cms`. */
function signerInfoFields(cms: Uint8Array): Der[] {
  const ci = children(readDerExact(cms));
  const sd = children(children(ci[1]!)[0]!);
  const signerInfos = sd.at(-1)!;
  if (signerInfos.tag !== TAG.SET) throw new Error('the last SignedData field is not signerInfos');
  return children(children(signerInfos)[0]!);
}

/**
 * A DER CMS with signed attributes made into one whose stored signed attributes are NOT DER:
 * their order reversed (X.690 §11.6 wants them sorted), same lengths. The signature is made
 * again with `keyPem` over `signOver(storedSet, derSet)`: the stored order (what OpenSSL
 * verifies, keeping the order it reads) or the DER one (RFC 5652 §5.4 read literally).
 */
export function reorderSignedAttributes(cms: Uint8Array, keyPem: string, signOver: 'stored' | 'der'): Uint8Array {
  const out = cms.slice();
  const fields = signerInfoFields(out);
  const attrs = fields.find((f) => f.tag === 0xa0);
  const signature = fields.find((f, i) => f.tag === TAG.OCTET_STRING && i > 3);
  if (!attrs || !signature) throw new Error('no signed attributes or signature in the SignerInfo');
  const items = children(attrs);
  if (items.length < 2) throw new Error('fewer than two signed attributes: nothing to reorder');
  const derSet = concat([Uint8Array.of(TAG.SET), attrs.raw.subarray(1)]);
  const reversed = concat(items.map((i) => i.raw).reverse());
  out.set(reversed, offsetIn(out, attrs) + attrs.raw.length - attrs.content.length);
  const storedSet = concat([Uint8Array.of(TAG.SET), out.subarray(offsetIn(out, attrs) + 1, offsetIn(out, attrs) + attrs.raw.length)]);
  const value = new Uint8Array(cryptoSign('sha256', signOver === 'stored' ? storedSet : derSet, keyPem));
  if (value.length !== signature.content.length) throw new Error('the new signature value has another length');
  out.set(value, offsetIn(out, signature) + signature.raw.length - signature.content.length);
  return out;
}

/**
 * An encapsulating BER CMS (`openssl cms -sign -stream`: indefinite lengths, the content in a
 * constructed OCTET STRING) made detached: encapContentInfo's `[0] eContent` cut out, as a
 * signer that streams writes a detached one (RFC 5652 §5.2). Its indefinite lengths need no
 * change; the signature stays valid (it covers the signed attributes, whose message digest is
 * the content's).
 */
export function detachBer(cms: Uint8Array): Uint8Array {
  // ContentInfo 30 80, contentType, [0] a0 80, SignedData 30 80, version, digestAlgorithms, then
  // encapContentInfo 30 80 06 09 <id-data> a0 80 … 00 00 00 00.
  const idData = Buffer.from('06092a864886f70d010701', 'hex');
  const buf = Buffer.from(cms);
  const at = buf.indexOf(Buffer.concat([Buffer.from([0x30, 0x80]), idData]));
  if (at < 0 || buf[at + 2 + idData.length] !== 0xa0 || buf[at + 3 + idData.length] !== 0x80) throw new Error('not an indefinite-length encapsulating CMS');
  const from = at + 2 + idData.length;
  // The [0]'s end: walk its elements (all indefinite or definite) to its end-of-contents.
  const end = (p: number): number => {
    if (buf[p + 1] === 0x80) {
      let q = p + 2;
      while (!(buf[q] === 0 && buf[q + 1] === 0)) q = end(q);
      return q + 2;
    }
    const first = buf[p + 1]!;
    if (first < 0x80) return p + 2 + first;
    const n = first & 0x7f;
    return p + 2 + n + buf.readUIntBE(p + 2, n);
  };
  return new Uint8Array(Buffer.concat([buf.subarray(0, from), buf.subarray(end(from))]));
}
