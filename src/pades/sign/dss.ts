/**
 * The Document Security Store of PAdES B-LT (ETSI EN 319 142-1 §5.4.2, ISO 32000-2 §12.8.4.3):
 * an incremental update after the signature adds the catalog's /DSS with the certificates, OCSP
 * responses and CRLs a verifier needs once the signer's CA is gone, and a /VRI entry per signature
 * saying which of them belong to it. The signed bytes are never touched: the input is an exact
 * prefix of the output, and an existing DSS is extended, not replaced.
 */
import { createHash } from 'node:crypto';
import { PDFArray, PDFDict, PDFName, PDFRawStream, PDFRef, type PDFContext } from 'pdf-lib';
import { PdfInputError, SigningError } from '../../domain/errors';
import { PdfReader } from '../pdf';
import { newObjectsAfter } from '../pdf';
import { writeIncrementalUpdate, type UpdateObject } from '../pdf';

export interface ValidationData {
  /** DER certificates. */
  certs: Uint8Array[];
  /** DER OCSPResponse messages (RFC 6960 §4.2.1). */
  ocsps: Uint8Array[];
  /** DER CertificateList messages (RFC 5280 §5.1). */
  crls: Uint8Array[];
}

export interface VriEntry extends ValidationData {
  /** The signature's /Contents string, as bytes, zero padding included. */
  signatureContents: Uint8Array;
}

const KINDS = [
  { key: 'Certs', vri: 'Cert', field: 'certs' },
  { key: 'OCSPs', vri: 'OCSP', field: 'ocsps' },
  { key: 'CRLs', vri: 'CRL', field: 'crls' },
] as const;

/**
 * VRI key (ETSI EN 319 142-1 §5.4.2.2, ISO 32000-2 Table 262): the base-16 upper-case SHA-1 of the
 * signature's /Contents value, the whole string as written (pyHanko and Adobe hash the padding too).
 */
export function vriKey(signatureContents: Uint8Array): string {
  return createHash('sha1').update(signatureContents).digest('hex').toUpperCase();
}

const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Existing DSS streams by content, so the same certificate is stored once whatever adds it. */
function existingStreams(reader: PdfReader, dss: PDFDict | undefined, key: string): { array: PDFRef[]; byContent: Map<string, PDFRef> } {
  const array: PDFRef[] = [];
  const byContent = new Map<string, PDFRef>();
  const items = dss ? reader.getArray(dss, key)?.asArray() ?? [] : [];
  for (const item of items) {
    if (!(item instanceof PDFRef)) continue;
    array.push(item);
    const stream = reader.getObject(item);
    if (stream instanceof PDFRawStream) {
      try {
        byContent.set(hexOf(reader.decodeStream(stream)), item);
      } catch (e) {
        if (e instanceof PdfInputError) throw e;
        // An unreadable stream stays listed; ours is simply added beside it.
      }
    }
  }
  return { array, byContent };
}

function refsArray(context: PDFContext, refs: PDFRef[]): PDFArray {
  const array = PDFArray.withContext(context);
  for (const r of refs) array.push(r);
  return array;
}

/**
 * Appends the DSS update to `pdf` (a signed document): `global` goes into /Certs, /OCSPs and
 * /CRLs, each entry of `vri` gets its /VRI dictionary referencing its own data.
 */
export function addDss(pdf: Uint8Array, global: ValidationData, vri: VriEntry[]): Uint8Array {
  const reader = new PdfReader(pdf);
  const { ref: catalogRef, dict: catalog } = reader.catalog();
  const { context, created } = newObjectsAfter(reader);
  const dssEntry = catalog.get(PDFName.of('DSS'));
  const oldDss = reader.resolve(dssEntry);
  const dss = oldDss instanceof PDFDict ? oldDss : (context.obj({ Type: 'DSS' }) as PDFDict);
  const streamsOf = new Map<string, (bytes: Uint8Array) => PDFRef>();
  for (const kind of KINDS) {
    const { array, byContent } = existingStreams(reader, oldDss instanceof PDFDict ? oldDss : undefined, kind.key);
    const refFor = (bytes: Uint8Array): PDFRef => {
      const known = byContent.get(hexOf(bytes));
      if (known) return known;
      // ISO 32000-2 §12.8.4.3: each entry is a stream holding the DER object.
      const ref = context.register(context.flateStream(bytes));
      byContent.set(hexOf(bytes), ref);
      array.push(ref);
      return ref;
    };
    streamsOf.set(kind.key, refFor);
    for (const item of [...global[kind.field], ...vri.flatMap((v) => v[kind.field])]) refFor(item);
    if (array.length > 0) dss.set(PDFName.of(kind.key), refsArray(context, array));
  }
  if (vri.length > 0) {
    const old = reader.resolve(dss.get(PDFName.of('VRI')));
    const vriDict = old instanceof PDFDict ? old : (context.obj({}) as PDFDict);
    for (const entry of vri) {
      const item = context.obj({}) as PDFDict;
      for (const kind of KINDS) {
        const refs = entry[kind.field].map((b) => streamsOf.get(kind.key)!(b));
        if (refs.length > 0) item.set(PDFName.of(kind.vri), refsArray(context, refs));
      }
      vriDict.set(PDFName.of(vriKey(entry.signatureContents)), item);
    }
    dss.set(PDFName.of('VRI'), vriDict);
  }
  const rewrites: UpdateObject[] = [];
  if (dssEntry instanceof PDFRef) {
    rewrites.push({ ref: PDFRef.of(dssEntry.objectNumber, reader.generationOf(dssEntry.objectNumber)), object: dss });
  } else {
    catalog.set(PDFName.of('DSS'), dssEntry === undefined ? context.register(dss) : dss);
    rewrites.push({ ref: PDFRef.of(catalogRef.objectNumber, reader.generationOf(catalogRef.objectNumber)), object: catalog });
  }
  if (rewrites.length + created().length === 0) throw new SigningError('nothing to add to the DSS');
  return writeIncrementalUpdate(pdf, reader.xref, [...rewrites, ...created()]).bytes;
}
