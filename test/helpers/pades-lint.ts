/**
 * Our own PAdES baseline B-B lint (ETSI EN 319 142-1 §5 and §6.3): the checks a PAdES validator
 * makes on every signature dictionary, independent of the engine that wrote the signature, so
 * the conformance tests do not grade the engine with its own code. Pure: bytes in, findings out.
 * Signature dictionaries are found by scanning for `/ByteRange`: a signer patches /Contents into
 * the file after writing it (ISO 32000-1 §12.8.1), so the dictionary is a plain indirect object,
 * never inside a compressed object stream, and a text scan finds every one.
 */
import forge from 'node-forge';
import { sha256 } from '@noble/hashes/sha2.js';

type Asn1 = forge.asn1.Asn1;
export type PdfValue =
  | { kind: 'number'; value: number; raw: string }
  | { kind: 'name'; value: string }
  | { kind: 'string'; value: string }
  | { kind: 'hex'; value: string; start: number; end: number }
  | { kind: 'array'; value: PdfValue[] }
  | { kind: 'dict'; value: Map<string, PdfValue> }
  | { kind: 'ref'; value: string }
  | { kind: 'other'; value: string };

export interface SignatureDictionary {
  /** Offset of the dictionary's `<<` in the file. */
  offset: number;
  entries: Map<string, PdfValue>;
}

export interface PadesLintResult {
  ok: boolean;
  problems: string[];
  signatures: number;
}

const OID = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
};
const DELIM = new Set([...'()<>[]{}/%']);
const WS = new Set([' ', '\n', '\r', '\t', '\f', '\0']);

/** A tolerant reader of one PDF value starting at `pos` (ISO 32000-1 §7.3); enough for sig dicts. */
function parseValue(s: string, pos: number): { v: PdfValue; end: number } {
  let p = skipWs(s, pos);
  if (s.startsWith('<<', p)) {
    const dict = new Map<string, PdfValue>();
    p += 2;
    for (;;) {
      p = skipWs(s, p);
      if (p >= s.length) throw new Error('unterminated dictionary');
      if (s.startsWith('>>', p)) return { v: { kind: 'dict', value: dict }, end: p + 2 };
      const key = parseValue(s, p);
      if (key.v.kind !== 'name') throw new Error(`dictionary key expected at ${p}`);
      const val = parseValue(s, key.end);
      dict.set(key.v.value, val.v);
      p = val.end;
    }
  }
  const c = s[p];
  if (c === '<') {
    const close = s.indexOf('>', p);
    if (close < 0) throw new Error('unterminated hex string');
    return { v: { kind: 'hex', value: s.slice(p + 1, close).replace(/\s+/g, ''), start: p, end: close + 1 }, end: close + 1 };
  }
  if (c === '[') {
    const items: PdfValue[] = [];
    p++;
    for (;;) {
      p = skipWs(s, p);
      if (p >= s.length) throw new Error('unterminated array');
      if (s[p] === ']') return { v: { kind: 'array', value: items }, end: p + 1 };
      const item = parseValue(s, p);
      items.push(item.v);
      p = item.end;
    }
  }
  if (c === '(') return parseLiteral(s, p);
  if (c === '/') {
    let e = p + 1;
    while (e < s.length && !DELIM.has(s.charAt(e)) && !WS.has(s.charAt(e))) e++;
    return { v: { kind: 'name', value: s.slice(p + 1, e) }, end: e };
  }
  let e = p;
  while (e < s.length && !DELIM.has(s.charAt(e)) && !WS.has(s.charAt(e))) e++;
  const word = s.slice(p, e);
  if (e === p) throw new Error(`unexpected ${JSON.stringify(c)} at ${p}`);
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
    // `N G R` is an indirect reference (§7.3.10); look ahead without committing.
    const ref = /^\s+(\d+)\s+R(?=[\s/<>[\]()%]|$)/.exec(s.slice(e, e + 24));
    if (/^\d+$/.test(word) && ref) return { v: { kind: 'ref', value: `${word} ${ref[1]} R` }, end: e + ref[0].length };
    return { v: { kind: 'number', value: Number(word), raw: word }, end: e };
  }
  return { v: { kind: 'other', value: word }, end: e };
}

function skipWs(s: string, p: number): number {
  for (;;) {
    while (p < s.length && WS.has(s.charAt(p))) p++;
    if (s[p] !== '%') return p;
    while (p < s.length && s[p] !== '\n' && s[p] !== '\r') p++;
  }
}

function parseLiteral(s: string, p: number): { v: PdfValue; end: number } {
  let depth = 0;
  let out = '';
  for (let i = p; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      out += s[i + 1] ?? '';
      i++;
    } else if (c === '(') {
      if (depth++ > 0) out += c;
    } else if (c === ')') {
      if (--depth === 0) return { v: { kind: 'string', value: out }, end: i + 1 };
      out += c;
    } else out += c;
  }
  throw new Error('unterminated literal string');
}

function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return s;
}

/**
 * Every dictionary holding a `/ByteRange` key, in file order. Each is read from the start of its
 * indirect object (`N G obj`), so a `/ByteRange` inside a string or stream is not mistaken for one.
 */
export function findSignatureDictionaries(pdf: Uint8Array): SignatureDictionary[] {
  const s = latin1(pdf);
  const found: SignatureDictionary[] = [];
  const seen = new Set<number>();
  for (let at = s.indexOf('/ByteRange'); at >= 0; at = s.indexOf('/ByteRange', at + 1)) {
    const objStart = objectBodyStart(s, at);
    if (objStart < 0 || seen.has(objStart)) continue;
    seen.add(objStart);
    try {
      const top = parseValue(s, objStart);
      const dict = findDictWithByteRange(top.v);
      if (dict) found.push({ offset: skipWs(s, objStart), entries: dict });
    } catch {
      continue; // not a dictionary we can read: a validator would not see a signature either
    }
  }
  return found;
}

/** Offset just after the `N G obj` that opens the object containing `at`, or -1. */
function objectBodyStart(s: string, at: number): number {
  for (let k = s.lastIndexOf('obj', at); k > 0; k = s.lastIndexOf('obj', k - 1)) {
    if (s.startsWith('endobj', k - 3)) return -1; // `at` lies between objects (or in a stream)
    const head = /\d+\s+\d+\s+$/.exec(s.slice(Math.max(0, k - 24), k));
    if (head) return k + 3;
  }
  return -1;
}

function findDictWithByteRange(v: PdfValue): Map<string, PdfValue> | null {
  if (v.kind === 'dict') {
    if (v.value.has('ByteRange')) return v.value;
    for (const child of v.value.values()) {
      const d = findDictWithByteRange(child);
      if (d) return d;
    }
  }
  if (v.kind === 'array') for (const child of v.value) {
    const d = findDictWithByteRange(child);
    if (d) return d;
  }
  return null;
}

/** The four ByteRange integers, or null when the entry is not an array of four integers. */
export function byteRangeOf(sig: SignatureDictionary): [number, number, number, number] | null {
  const br = sig.entries.get('ByteRange');
  if (br?.kind !== 'array' || br.value.length !== 4) return null;
  const n = br.value.map((x) => (x.kind === 'number' && /^\d+$/.test(x.raw) ? x.value : NaN));
  return n.some(Number.isNaN) ? null : (n as [number, number, number, number]);
}

/** ISO 32000-1 §7.9.4: D:YYYYMMDDHHmmSSOHH'mm' with every part after the year optional. */
export function isPdfDate(text: string): boolean {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-](\d{2})('(\d{2})'?)?)?$/.exec(text);
  if (!m) return false;
  const [mo, d, h, mi, se, oh, om] = [m[2], m[3], m[4], m[5], m[6], m[8], m[10]].map((x) => (x ? Number(x) : 0)) as [number, number, number, number, number, number, number];
  return (!m[2] || (mo >= 1 && mo <= 12)) && (!m[3] || (d >= 1 && d <= 31)) && h <= 23 && mi <= 59 && se <= 59 && oh <= 23 && om <= 59;
}

/** Runs the B-B checks on every signature dictionary; `ok` only when no problem was found. */
export function lintPadesBaselineB(pdf: Uint8Array): PadesLintResult {
  const sigs = findSignatureDictionaries(pdf);
  const problems: string[] = [];
  if (sigs.length === 0) problems.push('no signature dictionary (/ByteRange) found');
  sigs.forEach((sig, i) => {
    const field = sig.entries.get('T') ?? sig.entries.get('Name');
    const label = `signature ${i + 1}${field?.kind === 'string' ? ` (${field.value})` : ''}`;
    for (const p of lintOne(pdf, sig, i === sigs.length - 1)) problems.push(`${label}: ${p}`);
  });
  return { ok: problems.length === 0, problems, signatures: sigs.length };
}

function nameOf(sig: SignatureDictionary, key: string): string | undefined {
  const v = sig.entries.get(key);
  return v?.kind === 'name' ? v.value : undefined;
}

function lintOne(pdf: Uint8Array, sig: SignatureDictionary, last: boolean): string[] {
  const out: string[] = [];
  const type = nameOf(sig, 'Type');
  // /Type is optional for a signature dictionary (ISO 32000-1 Table 252) but must be /Sig if present.
  if (type !== undefined && type !== 'Sig') out.push(`/Type is /${type}, expected /Sig`);
  if (nameOf(sig, 'Filter') !== 'Adobe.PPKLite') out.push(`/Filter is ${show(sig.entries.get('Filter'))}, expected /Adobe.PPKLite`);
  // ETSI EN 319 142-1 §6.3 (B-B): the CAdES-based profile, never adbe.pkcs7.*.
  const sub = nameOf(sig, 'SubFilter');
  if (sub !== 'ETSI.CAdES.detached') out.push(`/SubFilter is ${show(sig.entries.get('SubFilter'))}, expected /ETSI.CAdES.detached`);
  const m = sig.entries.get('M');
  if (m?.kind !== 'string') out.push('/M (signing time) is missing');
  else if (!isPdfDate(m.value)) out.push(`/M ${JSON.stringify(m.value)} is not a PDF date`);
  const contents = sig.entries.get('Contents');
  if (contents?.kind !== 'hex') return [...out, '/Contents is not a hex string'];
  const br = byteRangeOf(sig);
  if (!br) return [...out, `/ByteRange is ${show(sig.entries.get('ByteRange'))}, expected four integers`];
  // ISO 32000-1 §12.8.1: the gap is exactly the /Contents string, angle brackets included.
  if (br[0] !== 0) out.push(`/ByteRange starts at ${br[0]}, expected 0`);
  if (br[0] + br[1] !== contents.start || br[2] !== contents.end)
    out.push(`/ByteRange gap ${br[0] + br[1]}..${br[2]} is not /Contents at ${contents.start}..${contents.end}`);
  const end = br[2] + br[3];
  if (end > pdf.length) return [...out, `/ByteRange ends at ${end}, beyond the file (${pdf.length} bytes)`];
  if (last && end !== pdf.length) out.push(`/ByteRange of the last signature ends at ${end}, not at EOF (${pdf.length})`);
  const digest = sha256.create().update(pdf.subarray(br[0], br[0] + br[1])).update(pdf.subarray(br[2], end)).digest();
  return [...out, ...lintCms(contents.value, digest)];
}

function show(v: PdfValue | undefined): string {
  if (!v) return 'missing';
  return v.kind === 'name' ? `/${v.value}` : v.kind === 'array' ? `[${v.value.map(show).join(' ')}]` : String(v.value);
}

const oidOf = (n: Asn1 | undefined): string => (n && n.type === forge.asn1.Type.OID ? forge.asn1.derToOid(n.value as string) : '');
const kids = (n: Asn1 | undefined): Asn1[] => (n && Array.isArray(n.value) ? n.value : []);
const der = (n: Asn1): string => forge.asn1.toDer(n).getBytes();
const hexOf = (bin: string): string => forge.util.bytesToHex(bin);

/** RFC 5652 §5 SignedData checked against ETSI EN 319 122-1 baseline B attributes. */
function lintCms(hex: string, documentDigest: Uint8Array): string[] {
  const out: string[] = [];
  let root: Asn1;
  try {
    // /Contents is zero-padded after the DER (ISO 32000-1 §12.8.1): parse the first object only.
    root = forge.asn1.fromDer(forge.util.hexToBytes(hex), { parseAllBytes: false, decodeBitStrings: false } as never);
  } catch (e) {
    return [`/Contents is not DER: ${(e as Error).message}`];
  }
  const [ctOid, explicit] = kids(root);
  if (oidOf(ctOid) !== OID.signedData) return ['CMS ContentInfo is not SignedData'];
  const sd = kids(kids(explicit)[0]);
  const encap = sd[2];
  if (oidOf(kids(encap)[0]) !== OID.data) out.push('encapsulated content type is not id-data');
  if (kids(encap).length > 1) out.push('CMS is not detached: eContent is present');
  const rest = sd.slice(3);
  const certs = rest.find((n) => n.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && n.type === 0);
  const signerInfos = kids(rest.find((n) => n.tagClass === forge.asn1.Class.UNIVERSAL && n.type === forge.asn1.Type.SET));
  if (signerInfos.length !== 1) return [...out, `CMS has ${signerInfos.length} SignerInfos, expected exactly 1`];
  const si = kids(signerInfos[0]);
  const sid = si[1];
  const sha256Used = oidOf(kids(si[2])[0]) === OID.sha256;
  if (!sha256Used) out.push(`digest algorithm is ${oidOf(kids(si[2])[0])}, expected SHA-256`);
  const signedAttrs = si.find((n) => n.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && n.type === 0);
  if (!signedAttrs) return [...out, 'SignerInfo has no signed attributes'];
  const attrs = new Map<string, Asn1[]>();
  for (const a of kids(signedAttrs)) {
    const oid = oidOf(kids(a)[0]);
    if (attrs.has(oid)) out.push(`signed attribute ${oid} appears twice`);
    attrs.set(oid, kids(kids(a)[1]));
  }
  const ct = attrs.get(OID.contentType);
  if (!ct) out.push('signed attribute content-type is missing');
  else if (oidOf(ct[0]) !== OID.data) out.push('signed attribute content-type is not id-data');
  // ETSI EN 319 142-1 §5.4.3 / §6.3: the claimed time is /M; a signing-time attribute is forbidden.
  if (attrs.has(OID.signingTime)) out.push('signed attribute signing-time is present (PAdES puts the time in /M)');
  const md = attrs.get(OID.messageDigest);
  if (!md) out.push('signed attribute message-digest is missing');
  else if (sha256Used && hexOf(md[0]?.value as string) !== hexOf(latin1(documentDigest)))
    out.push('message-digest does not equal SHA-256 of the /ByteRange bytes');
  const signer = kids(certs).find((c) => matchesSid(c, sid));
  if (!signer) out.push('signer certificate is not among the CMS certificates');
  const scv2 = attrs.get(OID.signingCertificateV2);
  if (!scv2) out.push('signed attribute signing-certificate-v2 is missing');
  else if (signer) {
    // RFC 5035 §3: ESSCertIDv2.hashAlgorithm defaults to SHA-256 when omitted.
    const first = kids(kids(kids(scv2[0])[0])[0]);
    const hash = first[0]?.type === forge.asn1.Type.OCTETSTRING ? first[0] : first[1];
    const certHash = hexOf(latin1(sha256(bytesOf(der(signer)))));
    if (first[0]?.type !== forge.asn1.Type.OCTETSTRING && oidOf(kids(first[0])[0]) !== OID.sha256) out.push('signing-certificate-v2 does not use SHA-256');
    else if (hexOf((hash?.value as string) ?? '') !== certHash) out.push('signing-certificate-v2 hash does not match the signer certificate');
  }
  return out;
}

function bytesOf(bin: string): Uint8Array {
  const b = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
  return b;
}

/** RFC 5652 §5.3: the sid is IssuerAndSerialNumber or [0] SubjectKeyIdentifier. */
function matchesSid(cert: Asn1, sid: Asn1 | undefined): boolean {
  if (!sid) return false;
  const tbs = kids(kids(cert)[0]);
  const off = tbs[0]?.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC ? 1 : 0; // [0] version
  if (sid.tagClass === forge.asn1.Class.UNIVERSAL) {
    const [issuer, serial] = kids(sid);
    const [certSerial, certIssuer] = [tbs[off], tbs[off + 2]];
    return !!issuer && !!serial && !!certSerial && !!certIssuer && der(issuer) === der(certIssuer) && der(serial) === der(certSerial);
  }
  const exts = kids(kids(tbs.find((n) => n.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && n.type === 3))[0]);
  const ski = exts.find((e) => oidOf(kids(e)[0]) === '2.5.29.14');
  if (!ski) return false;
  const inner = forge.asn1.fromDer(kids(ski).at(-1)?.value as string);
  return inner.value === sid.value;
}
