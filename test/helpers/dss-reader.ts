/**
 * Reads a PDF's /DSS with pdf-lib (not with the engine's own reader): the streams of /Certs,
 * /OCSPs and /CRLs decoded, and each /VRI entry's keys, so tests judge what the engine wrote
 * with a second reading.
 */
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';

export interface DssContents {
  certs: Uint8Array[];
  ocsps: Uint8Array[];
  crls: Uint8Array[];
  vri: Map<string, { cert: number; ocsp: number; crl: number }>;
}

export async function readDss(pdf: Uint8Array): Promise<DssContents | null> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const dss = doc.catalog.lookupMaybe(PDFName.of('DSS'), PDFDict);
  if (!dss) return null;
  const streams = (dict: PDFDict, key: string): Uint8Array[] =>
    (dict.lookupMaybe(PDFName.of(key), PDFArray)?.asArray() ?? []).map((r) => {
      const s = doc.context.lookup(r as PDFRef);
      if (!(s instanceof PDFRawStream)) throw new Error(`/DSS ${key} holds a non-stream`);
      return decodePDFRawStream(s).decode();
    });
  const vri = new Map<string, { cert: number; ocsp: number; crl: number }>();
  const vriDict = dss.lookupMaybe(PDFName.of('VRI'), PDFDict);
  for (const [key, value] of vriDict?.entries() ?? []) {
    const entry = doc.context.lookup(value);
    if (!(entry instanceof PDFDict)) continue;
    const count = (k: string) => entry.lookupMaybe(PDFName.of(k), PDFArray)?.size() ?? 0;
    vri.set(key.decodeText(), { cert: count('Cert'), ocsp: count('OCSP'), crl: count('CRL') });
  }
  return { certs: streams(dss, 'Certs'), ocsps: streams(dss, 'OCSPs'), crls: streams(dss, 'CRLs'), vri };
}
