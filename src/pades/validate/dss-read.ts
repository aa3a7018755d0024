/**
 * Reads a document's /DSS (ETSI EN 319 142-1 §5.4.2) for local validation: its certificates,
 * OCSP responses and CRLs as DER, with those the /VRI dictionaries list (§5.4.2.3: /Cert, /CRL,
 * /OCSP, normally the same streams), each stream once, and the /VRI keys present. Unreadable streams are skipped, not
 * fatal: validation reports what it could not find. A stream over the document's decoding budget
 * is the refusal of the whole document (PdfInputError), and a stream listed again is decoded once
 * (the reader's cache: a /DSS listing one bomb three times decoded it three times, 5.2 GB).
 */
import { PDFDict, PDFName, PDFRawStream } from 'pdf-lib';
import { PdfInputError } from '../../domain/errors';
import type { PdfReader } from '../pdf';

export interface DssData {
  certs: Uint8Array[];
  ocsps: Uint8Array[];
  crls: Uint8Array[];
  vriKeys: Set<string>;
}

export function readDssData(reader: PdfReader, catalog: PDFDict): DssData {
  const dss = reader.getDict(catalog, 'DSS');
  const vri = dss && reader.getDict(dss, 'VRI');
  const vriKeys = vri ? [...vri.keys()] : [];
  const entries = vri ? vriKeys.map((k) => reader.getDict(vri, k.decodeText())).filter((d): d is PDFDict => d !== undefined) : [];
  const streams = (key: string, vriKey: string): Uint8Array[] => {
    const found = new Set<PDFRawStream>();
    for (const dict of [dss, ...entries]) {
      for (const item of (dict && reader.getArray(dict, dict === dss ? key : vriKey)?.asArray()) ?? []) {
        const s = reader.resolve(item);
        if (s instanceof PDFRawStream) found.add(s);
      }
    }
    const out: Uint8Array[] = [];
    for (const s of found) {
      try {
        out.push(reader.decodeStream(s));
      } catch (e) {
        if (e instanceof PdfInputError) throw e;
        // an undecodable entry: left out, and whatever it should prove stays unproven
      }
    }
    return out;
  };
  return {
    certs: streams('Certs', 'Cert'),
    ocsps: streams('OCSPs', 'OCSP'),
    crls: streams('CRLs', 'CRL'),
    vriKeys: new Set(vriKeys.map((k: PDFName) => k.decodeText().toUpperCase())),
  };
}
