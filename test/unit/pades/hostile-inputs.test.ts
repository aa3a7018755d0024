/**
 * The hostile documents of issue 15 through the engine's entry points (validation, the sign
 * route's pre-check): each is refused with a PdfInputError (a 422) or answered correctly, and
 * quickly. Figures in the names are the probe's before the fix; the bound asserted is generous
 * (2 s) and only for these pathological inputs.
 */
import { describe, expect, it } from 'vitest';
import { PdfInputError } from '../../../src/domain/errors';
import { refuseRangeErrors, tooComplex, TooComplexError, unlessDamaged } from '../../../src/pades/pdf/limits';
import { PdfReader } from '../../../src/pades/pdf/pdf-reader';
import { MAX_PARSED_OBJECTS, MAX_STRING_BYTES } from '../../../src/pades/pdf/_object-parser';
import { ChangeAnalysis, MAX_CHANGES_LISTED } from '../../../src/pades/validate/modifications';
import { checkPdf } from '../../../src/pades/pdf/pdf-check';
import { checkPdfForSigning } from '../../../src/pades/sign/sign-check';
import { MAX_SIGNATURES, validatePdf, type ValidationReport } from '../../../src/pades/validate/validate';
import {
  cmsWithHugeOid, deeplyNested, dssRepeatedBomb, flateBombXref, hugeArrayInCatalog, hugeHexStringInCatalog, hugeIndexXref, hugeSignatureContents,
  manyFieldsOneSignature, manySignatureDictionaries, signatureShapedPdf, zeroWidthXref,
} from '../../helpers/hostile-pdfs';

const BOUND_MS = 2_000;
const options = { trustAnchors: [], now: new Date('2026-12-01T00:00:00Z') };

/** Runs `work`, asserting it took less than `bound` ms. */
function quickly<T>(work: () => T, bound = BOUND_MS): T {
  const t0 = performance.now();
  try {
    return work();
  } finally {
    expect(performance.now() - t0).toBeLessThan(bound);
  }
}

function refusal(work: () => unknown, bound = BOUND_MS): PdfInputError {
  try {
    quickly(work, bound);
  } catch (e) {
    expect(e).toBeInstanceOf(PdfInputError);
    return e as PdfInputError;
  }
  throw new Error('expected a refusal');
}

describe('hostile cross-reference streams', () => {
  it('/W [0 0 0] with a 10 KB /Index: refused at once (50 s before)', () => {
    const pdf = zeroWidthXref(10_240);
    for (const read of [() => validatePdf(pdf, options), () => checkPdf(pdf), () => checkPdfForSigning(pdf, null)]) {
      expect(refusal(read).message).toBe('cross-reference data is broken: /W [0 0 0] in the cross-reference stream at byte 192: rows of zero bytes');
    }
  });

  it('the 318-byte /Index [0 20000000]: a 422, not a 500 after 1.3 GB', () => {
    expect(hugeIndexXref().length).toBeLessThan(400);
    expect(refusal(() => validatePdf(hugeIndexXref(), options)).message).toMatch(/^cross-reference data is broken: \/W \[0 0 0\]/);
    expect(refusal(() => checkPdf(hugeIndexXref([1, 2, 1]))).message).toMatch(/is truncated: \/Index lists 20000000 rows of 4 bytes, the data holds 1$/);
  });

  it('a 1 MB flate bomb as the xref stream: over the stream cap (3.2 GB before)', () => {
    const pdf = flateBombXref(1);
    expect(refusal(() => validatePdf(pdf, options)).message).toBe('document too complex: decoded stream data over 64 MiB in one stream');
    expect(refusal(() => checkPdfForSigning(pdf, null)).message).toBe('document too complex: decoded stream data over 64 MiB in one stream');
  });
});

describe('hostile streams and strings elsewhere', () => {
  it('a /DSS listing one bomb three times: refused at the first (5.2 GB before)', () => {
    const e = refusal(() => validatePdf(dssRepeatedBomb(1, 3), options));
    expect(e).toBeInstanceOf(TooComplexError);
    expect(e.message).toBe('document too complex: decoded stream data over 64 MiB in one stream');
  });

  it('a 50 MB hex string in the catalog: read as the PDF it is (2.95 GB before)', () => {
    const pdf = hugeHexStringInCatalog(50);
    expect(quickly(() => checkPdfForSigning(pdf, null))).toMatchObject({ pageCount: 1, signatureCount: 0 });
    expect(quickly(() => validatePdf(pdf, options))).toEqual({ valid: false, signatures: [], problems: [] });
  });

  it('an array of 2.5 million numbers in the catalog: refused at the 2,000,000th object, before it fills a heap', () => {
    const pdf = hugeArrayInCatalog(2_500_000);
    // Two million objects are parsed before the refusal: within a few seconds even on a loaded machine.
    expect(refusal(() => checkPdf(pdf), 5_000).message).toMatch(new RegExp(`^document too complex: more than ${MAX_PARSED_OBJECTS} objects to read \\(at byte \\d+\\)$`));
    // Counted per document: a reader and the readers of its revisions share the count.
    expect(refusal(() => validatePdf(pdf, options), 5_000)).toBeInstanceOf(TooComplexError);
  });

  it('a 200 MB hex string in the catalog: refused at once, over the 64 MiB a string may hold (the process died before)', () => {
    const pdf = hugeHexStringInCatalog(200);
    const at = Buffer.from(pdf.buffer, pdf.byteOffset, 200).indexOf('/Junk <') + '/Junk '.length;
    expect(quickly(() => refusal(() => checkPdfForSigning(pdf, null))).message).toBe(`document too complex: a hex string of ${200 * 1024 * 1024} bytes at byte ${at} (at most ${MAX_STRING_BYTES})`);
  });

  it('a 50 MB /Contents: the signature reported unreadable (3.75 GB for 100 MB before)', () => {
    const pdf = hugeSignatureContents(50); // made before the clock starts: only the engine is timed
    const report = quickly(() => validatePdf(pdf, options));
    expect(report.signatures).toHaveLength(1);
    expect(report.signatures[0]!.problems[0]).toMatch(/^the signature is not a readable CMS SignedData: /);
  });

  it('a 100 MB /Contents: the document is refused (over the 64 MiB a string may hold), never reported without its signature', () => {
    const pdf = hugeSignatureContents(100);
    const e = quickly(() => refusal(() => validatePdf(pdf, options)));
    expect(e).toBeInstanceOf(TooComplexError);
    expect(e.message).toMatch(/^document too complex: a hex string of 104857600 bytes/);
  });

  it('a signature field whose value cannot be read is a problem of the document, not left out in silence', () => {
    const pdf = Buffer.from(signatureShapedPdf(Buffer.from('3000', 'latin1')));
    // The signature dictionary's header no longer reads as object 5 where the table says it is.
    pdf.write('5 0 obX', pdf.indexOf('5 0 obj'), 'latin1');
    const report = validatePdf(new Uint8Array(pdf), options);
    expect(report.valid).toBe(false);
    expect(report.signatures).toEqual([]);
    expect(report.problems).toEqual([expect.stringMatching(/^signature field Signature1: its value cannot be read \(cross-reference data is broken: /)]);
  });

  it('a CMS whose contentType OID is 400 KB: reported in milliseconds (66 s before)', () => {
    const pdf = cmsWithHugeOid(400);
    const report = quickly(() => validatePdf(pdf, options));
    expect(report.signatures[0]!.problems[0]).toBe('the signature is not a readable CMS SignedData: an OBJECT IDENTIFIER of 409600 content octets is over the 64 read');
  });

  it('arrays nested 200,000 deep: a RangeError inside the reader is "document too complex"', () => {
    const pdf = deeplyNested(200_000);
    expect(refusal(() => checkPdf(pdf)).message).toMatch(/^document too complex: object 1 at byte \d+: Maximum call stack size exceeded$/);
    expect(refusal(() => validatePdf(pdf, options))).toBeInstanceOf(TooComplexError);
  });

  it('refuseRangeErrors: a RangeError becomes the 422, anything else passes through', () => {
    expect(() => refuseRangeErrors(() => new Array(-1))).toThrow('document too complex: Invalid array length');
    expect(() => refuseRangeErrors(() => { throw new TypeError('not mine'); })).toThrow(TypeError);
    expect(refuseRangeErrors(() => 42)).toBe(42);
  });

  it('unlessDamaged: damage reads as undefined, a limit (ours or V8\'s) is never taken for damage', () => {
    expect(unlessDamaged(() => { throw new PdfInputError('object 7 is cut off'); })).toBeUndefined();
    expect(unlessDamaged(() => { throw new TypeError('a broken dictionary'); })).toBeUndefined();
    expect(() => unlessDamaged(() => { throw tooComplex('over a limit'); })).toThrow('document too complex: over a limit');
    expect(() => unlessDamaged(() => new Array(-1))).toThrow(RangeError);
    expect(unlessDamaged(() => 42)).toBe(42);
  });
});

describe('many fields and many signatures', () => {
  it('2,000 fields sharing one signature dictionary: validated once, every field named (31 s before)', () => {
    const pdf = manyFieldsOneSignature(2000);
    const report = quickly(() => validatePdf(pdf, options));
    expect(report.signatures).toHaveLength(1);
    const [sig] = report.signatures;
    expect(sig).toMatchObject({ fieldName: 'OtherTool', digestValid: true, subFilter: 'adbe.pkcs7.detached' });
    expect(sig!.fields).toEqual(['OtherTool', ...Array.from({ length: 2000 }, (_, i) => `Copy ${i + 1}`)]);
    // The update adding the fields is form work (level 2), its lines cut at the cap with the count kept.
    expect(sig!.modifications.level).toBe('signing_and_forms');
    expect(sig!.modifications.changes).toHaveLength(MAX_CHANGES_LISTED);
    expect(sig!.modifications.changesTotal).toBeGreaterThanOrEqual(2000);
  });

  it('200 fields sharing one: a small report (15 MB before)', () => {
    const report = validatePdf(manyFieldsOneSignature(200), options);
    expect(JSON.stringify(report).length).toBeLessThan(64 * 1024);
  });

  it(`${MAX_SIGNATURES} signature dictionaries are validated; one more is refused naming the limit`, () => {
    const pdf = manySignatureDictionaries(MAX_SIGNATURES - 1);
    const at = quickly(() => validatePdf(pdf, options));
    expect(at.signatures).toHaveLength(MAX_SIGNATURES);
    expect(at.signatures.every((s) => s.digestValid)).toBe(true);
    expect(refusal(() => validatePdf(manySignatureDictionaries(MAX_SIGNATURES), options)).message).toBe(
      `document too complex: more than ${MAX_SIGNATURES} signatures (at most ${MAX_SIGNATURES} are validated per document)`,
    );
  });

  it('analyses the changes after a revision once, however many signatures end there', () => {
    const pdf = manyFieldsOneSignature(10);
    const analysis = new ChangeAnalysis(new PdfReader(pdf));
    const { byteRange } = (validatePdf(pdf, options) as ValidationReport).signatures[0]!;
    const end = byteRange![2] + byteRange![3];
    const first = analysis.analyse(end);
    expect(analysis.analyse(end)).toBe(first);
    expect(first).toMatchObject({ level: 'signing_and_forms', changesTotal: 11 });
    expect(analysis.analyse(pdf.length)).toEqual({ level: 'none', changes: [], changesTotal: 0 });
  });
});
